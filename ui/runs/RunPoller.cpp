#include "runs/RunPoller.h"

namespace headroom::ui {

RunPoller::RunPoller(int interval_ms) : timer_(this) {
    timer_.setInterval(interval_ms);
    connect(&timer_, &QTimer::timeout, this, &RunPoller::poll);
}

void RunPoller::watch(const QString &project_path) {
    if (project_path != project_path_) {
        run_id_ = 0;
        runs_signature_.clear();
    }
    project_path_ = project_path;
    timer_.start();
}

void RunPoller::stopWatching() {
    timer_.stop();
    run_id_ = 0;
}

void RunPoller::poll() {
    if (project_path_.isEmpty()) {
        return;
    }
    try {
        const Project project = Project::openForReading(project_path_.toStdString());
        const std::vector<RunRecord> runs = project.runs();
        QString signature;
        for (const RunRecord &run : runs) {
            signature += QStringLiteral("%1:%2:%3;")
                             .arg(run.id)
                             .arg(QString::fromStdString(toString(run.status)))
                             .arg(run.last_step);
        }
        if (signature != runs_signature_) {
            runs_signature_ = signature;
            Q_EMIT runsChanged();
        }
        const RunRecord *running = nullptr;
        for (const RunRecord &run : runs) {
            if (run.status == RunStatus::Running || run.status == RunStatus::Paused) {
                if (run.ended_at.empty()) {
                    running = &run;
                }
            }
        }
        if (running && running->id != run_id_) {
            run_id_ = running->id;
            last_step_ = 0;
            last_eval_step_ = 0;
            event_count_ = 0;
            Q_EMIT runFound(*running);
        }
        if (run_id_ == 0) {
            return;
        }
        QVector<StepMetrics> steps;
        for (const StepMetrics &step : project.metrics(run_id_, last_step_)) {
            steps.push_back(step);
            last_step_ = step.step;
        }
        if (!steps.isEmpty()) {
            Q_EMIT stepsArrived(steps);
        }
        QVector<EvalMetrics> evals;
        for (const EvalRecord &eval : project.evaluations(run_id_, last_eval_step_)) {
            evals.push_back(eval.metrics);
            last_eval_step_ = eval.metrics.step;
        }
        if (!evals.isEmpty()) {
            Q_EMIT evalsArrived(evals);
        }
        const std::vector<EventRecord> events = project.events(run_id_);
        for (std::size_t i = event_count_; i < events.size(); ++i) {
            Q_EMIT eventArrived(storedRunEvent(events[i]));
        }
        event_count_ = events.size();
        if (!running || running->id != run_id_) {
            const std::optional<RunRecord> ended = project.run(run_id_);
            run_id_ = 0;
            if (ended) {
                Q_EMIT runEnded(*ended);
            }
        }
    } catch (const std::exception &error) {
        // The writer may hold the file for a moment (or it is being migrated): next tick.
        if (last_error_ != error.what()) {
            last_error_ = error.what();
            qWarning("watching %s: %s", qPrintable(project_path_), error.what());
        }
    }
}

} // namespace headroom::ui
