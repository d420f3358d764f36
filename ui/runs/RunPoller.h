#pragma once

#include "EngineMetaTypes.h"

#include <QObject>
#include <QTimer>

#include <string>

namespace headroom::ui {

// Reads a project on a timer and reports what the running run wrote since the last poll.
// Lives on RunWatcher's worker thread: reading a long run's metrics (and SQLite's busy
// timeout, should the writer hold a lock) never stalls the UI thread.
class RunPoller : public QObject {
    Q_OBJECT

public:
    explicit RunPoller(int interval_ms);

    void watch(const QString &project_path);
    void stopWatching();
    void setInterval(int milliseconds) { timer_.setInterval(milliseconds); }
    void poll();

Q_SIGNALS:
    void runFound(const headroom::RunRecord &run);
    void stepsArrived(const QVector<headroom::StepMetrics> &steps);
    void evalsArrived(const QVector<headroom::EvalMetrics> &evals);
    void eventArrived(const headroom::ui::RunEvent &event);
    void runEnded(const headroom::RunRecord &run);
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
