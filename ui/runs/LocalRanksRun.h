#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace headroom::ui {

// A data-parallel run on this machine, started from the app: `headroom-cli train PROJECT
// --nproc N` as a child process (the engine's ranks are processes, not threads). The window
// follows it like any run another process trains (RunWatcher reads what rank 0 writes);
// this object starts it, stops it (SIGTERM: the launcher forwards it and the ranks agree on
// the step to stop after) and reports how it ended with the last lines it wrote.
class LocalRanksRun : public QObject {
    Q_OBJECT

public:
    explicit LocalRanksRun(QObject *parent = nullptr);
    ~LocalRanksRun() override;

    // headroom-cli next to this program (HEADROOM_CLI overrides: tests, unusual installs).
    static QString defaultCliPath();
    void setCliPath(const QString &path) { cli_path_ = path; }

    // Empty on success, else why it could not start (no headroom-cli, a run already going).
    QString start(const QString &project_path, int ranks, bool resume);
    void stop();
    bool isRunning() const { return process_.state() != QProcess::NotRunning; }
    int ranks() const { return ranks_; }

Q_SIGNALS:
    void started(int ranks);
    // exit_code as headroom-cli's contract (0 done, 2 bad input, 3 could not continue);
    // -1 when it crashed. message: its last error lines, empty after a clean end.
    void finished(int exit_code, const QString &message);

private:
    QProcess process_;
    QString cli_path_;
    int ranks_ = 0;
    QStringList recent_errors_;
};

} // namespace headroom::ui
