#pragma once

#include "EngineMetaTypes.h"

#include <QObject>
#include <QThread>

namespace headroom::ui {

class RunPoller;

// Follows a project that another process (headroom-cli) is training: a RunPoller on a worker
// thread polls it on a timer (SQLite WAL lets readers in while the writer commits) and this
// object hands its reports to the UI thread. Reports that arrive after stopWatching() are
// dropped, so a run started in this window never mixes with a watched one.
class RunWatcher : public QObject {
    Q_OBJECT

public:
    static constexpr int kDefaultIntervalMs = 1000;

    explicit RunWatcher(QObject *parent = nullptr);
    ~RunWatcher() override;

    void watch(const QString &project_path);
    void stopWatching();
    void setInterval(int milliseconds);
    // Polls as soon as the worker is free (the timer polls too).
    void pollSoon();
    bool isWatching() const { return watching_; }
    std::int64_t watchedRunId() const { return run_id_; }

Q_SIGNALS:
    // A run another process is writing; what it wrote so far follows as steps/evals/events.
    void runFound(const headroom::RunRecord &run);
    void stepsArrived(const QVector<headroom::StepMetrics> &steps);
    void evalsArrived(const QVector<headroom::EvalMetrics> &evals);
    void eventArrived(const headroom::ui::RunEvent &event);
    // The watched run is no longer running (finished, stopped, failed).
    void runEnded(const headroom::RunRecord &run);
    // Run records changed (a new run, a status, a step count).
    void runsChanged();

private:
    QThread thread_;
    RunPoller *poller_ = nullptr; // lives on thread_, deleted when it finishes
    bool watching_ = false;
    std::int64_t run_id_ = 0;
};

} // namespace headroom::ui
