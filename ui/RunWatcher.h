#pragma once

#include "EngineMetaTypes.h"

#include <QObject>
#include <QTimer>

namespace headroom::ui {

// Follows a project that another process (headroom-cli) is training: polls it read-only on
// a timer (SQLite WAL lets readers in while the writer commits) and reports the running
// run's new steps, evaluations and events, and when the runs change.
class RunWatcher : public QObject {
    Q_OBJECT

public:
    static constexpr int kDefaultIntervalMs = 1000;

    explicit RunWatcher(QObject *parent = nullptr);

    void watch(const QString &project_path);
    void stopWatching();
    void setInterval(int milliseconds) { timer_.setInterval(milliseconds); }
    // Polls now (the timer calls it).
    void poll();
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
    QString project_path_;
    QTimer timer_;
    std::int64_t run_id_ = 0;
    std::int64_t last_step_ = 0;
    std::int64_t last_eval_step_ = 0;
    std::size_t event_count_ = 0;
    QString runs_signature_;
    std::string last_error_;
};

} // namespace headroom::ui
