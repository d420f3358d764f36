#include "main_window/RunControls.h"

#include "runs/RunWatcher.h"
#include "runs/SessionController.h"
#include "views/CompareView.h"
#include "views/LiveView.h"
#include "views/LogView.h"
#include "views/PlanView.h"
#include "views/RunsPanel.h"
#include "views/TryView.h"

#include <headroom/workflow.h>

#include <QLabel>
#include <QProgressBar>
#include <QTabWidget>
#include <QTimer>

#include <algorithm>

namespace headroom::ui {

namespace {
QString stateText(SessionState state) {
    switch (state) {
    case SessionState::Idle:
        return MainWindowText::tr("Idle");
    case SessionState::Preparing:
        return MainWindowText::tr("Preparing");
    case SessionState::Running:
        return MainWindowText::tr("Training");
    case SessionState::Paused:
        return MainWindowText::tr("Paused");
    case SessionState::Stopping:
        return MainWindowText::tr("Stopping");
    case SessionState::Finished:
        return MainWindowText::tr("Finished");
    case SessionState::Stopped:
        return MainWindowText::tr("Stopped");
    case SessionState::Failed:
        return MainWindowText::tr("Failed");
    }
    return {};
}

QString durationText(double seconds) {
    const qint64 total = qint64(seconds + 0.5);
    if (total >= 3600) {
        return MainWindowText::tr("%1 h %2 min").arg(total / 3600).arg((total % 3600) / 60);
    }
    if (total >= 60) {
        return MainWindowText::tr("%1 min %2 s").arg(total / 60).arg(total % 60);
    }
    return MainWindowText::tr("%1 s").arg(total);
}
} // namespace

RunControls::RunControls(const WindowViews &views, QObject *parent)
    : QObject(parent), views_(views) {
    controller_ = new SessionController(this);
    watcher_ = new RunWatcher(this);
    progress_ = new QProgressBar(views_.window);
    progress_->setObjectName(QStringLiteral("runProgress"));
    progress_->setMaximumWidth(220);
    progress_->setFormat(MainWindowText::tr("step %v / %m"));
    progress_->setAccessibleName(MainWindowText::tr("Training progress"));
    progress_->hide();
    eta_label_ = new QLabel(views_.window);
    eta_label_->setObjectName(QStringLiteral("etaLabel"));

    connect(controller_, &SessionController::runStarted, this, &RunControls::onRunStarted);
    connect(controller_, &SessionController::stepsArrived, this, &RunControls::onSteps);
    connect(controller_, &SessionController::evalsArrived, views_.live, &LiveView::appendEvals);
    connect(controller_, &SessionController::eventArrived, this, [this](const EngineEvent &event) {
        onEvent(RunEvent{live_run_.run_id, event, QDateTime::currentDateTime()});
    });
    connect(controller_, &SessionController::stateChanged, this, &RunControls::onStateChanged);
    connect(controller_, &SessionController::finished, this, &RunControls::onFinished);

    connect(watcher_, &RunWatcher::runFound, this, &RunControls::onExternalRunFound);
    connect(watcher_, &RunWatcher::stepsArrived, this, &RunControls::onSteps);
    connect(watcher_, &RunWatcher::evalsArrived, views_.live, &LiveView::appendEvals);
    connect(watcher_, &RunWatcher::eventArrived, this, &RunControls::onEvent);
    connect(watcher_, &RunWatcher::runEnded, this, &RunControls::onExternalRunEnded);
    connect(watcher_, &RunWatcher::runsChanged, this, [this] {
        if (controller_->isActive()) {
            return;
        }
        const std::int64_t newest_before =
            views_.runs->runs().empty() ? 0 : views_.runs->runs().back().id;
        refreshRuns();
        const std::int64_t newest = views_.runs->runs().empty() ? 0 : views_.runs->runs().back().id;
        if (newest > newest_before && !watching_external_run_ && newest_before != 0) {
            views_.runs->selectRun(newest);
            showStoredRun(newest); // started and ended between two polls
        }
    });

    connect(views_.runs, &RunsPanel::runSelected, this, [this](std::int64_t run_id) {
        if (!controller_->isActive() && !watching_external_run_) {
            showStoredRun(run_id);
        }
        views_.try_view->selectRun(run_id);
        Q_EMIT actionsChanged(); // the exports follow the selected run
    });
    connect(views_.plan, &PlanView::configChanged, this,
            [this] { views_.live->setBudget(views_.plan->config().bytes("memory.budget")); });
}

bool RunControls::isActive() const {
    return controller_->isActive();
}

QString RunControls::projectPath() const {
    return views_.runs->projectPath();
}

void RunControls::start(bool continue_last) {
    SessionRequest request;
    request.project_path = projectPath().toStdString();
    request.resume = continue_last;
    watcher_->stopWatching();
    live_run_ = RunInfo{};
    live_step_ = 0;
    live_peak_ = 0;
    live_recoveries_ = 0;
    views_.live->beginRun(0, MainWindowText::tr("Preparing a run…"));
    views_.live->setBudget(views_.plan->config().bytes("memory.budget"));
    views_.log->setDiagnosis({});
    views_.plan->setEditable(false);
    controller_->start(request);
    views_.tabs->setCurrentWidget(views_.live);
    Q_EMIT actionsChanged();
}

void RunControls::pause() {
    controller_->pause();
    Q_EMIT statusText(MainWindowText::tr("Pausing after this step…"));
}

void RunControls::resume() {
    controller_->resume();
}

void RunControls::stop() {
    controller_->stop();
    Q_EMIT statusText(MainWindowText::tr("Stopping: writing a checkpoint…"));
    Q_EMIT actionsChanged();
}

void RunControls::stopForClosing() {
    close_after_stop_ = true;
    Q_EMIT statusText(MainWindowText::tr("Stopping: writing a checkpoint before quitting…"));
    controller_->stop();
}

void RunControls::followProject(const QString &path) {
    watching_external_run_ = false;
    watcher_->watch(path);
    watcher_->pollSoon(); // a run another process is writing shows at once
    if (!watching_external_run_ && views_.runs->runCount() > 0) {
        views_.runs->selectRun(views_.runs->runs().back().id);
        showStoredRun(views_.runs->runs().back().id);
    }
}

void RunControls::stopWatching() {
    watcher_->stopWatching();
}

void RunControls::onRunStarted(const RunInfo &info) {
    live_run_ = info;
    views_.live->beginRun(info.run_id, MainWindowText::tr("Run %1 · %2 · %3")
                                           .arg(info.run_id)
                                           .arg(QString::fromStdString(info.model),
                                                QString::fromStdString(info.device)));
    progress_->setRange(int(info.start_step), int(info.stop_step));
    progress_->setValue(int(info.start_step));
    progress_->show();
    refreshRuns();
    views_.runs->selectRun(info.run_id);
}

void RunControls::onSteps(const QVector<StepMetrics> &steps) {
    if (watching_external_run_ && views_.live->series().steps.isEmpty() && !steps.isEmpty()) {
        // A run found mid-way (or resumed): its timing starts at its first step.
        live_run_.start_step = steps.first().step - 1;
        progress_->setMinimum(int(live_run_.start_step));
    }
    views_.live->appendSteps(steps);
    if (!steps.isEmpty()) {
        updateProgress(steps.last().step);
        for (const StepMetrics &step : steps) {
            live_peak_ = std::max(live_peak_, step.mem_peak);
        }
        views_.runs->showLiveProgress(views_.live->runId(), steps.last().step,
                                      live_run_.target_steps, steps.last().loss, live_peak_,
                                      live_recoveries_);
    }
}

void RunControls::updateProgress(std::int64_t step) {
    live_step_ = step;
    progress_->setValue(int(step));
    const RunSeries &series = views_.live->series();
    const std::int64_t done = step - live_run_.start_step;
    const double elapsed = series.elapsed_s.isEmpty() ? 0 : series.elapsed_s.last();
    if (done > 0 && elapsed > 0 && live_run_.stop_step > step) {
        const double remaining = elapsed / double(done) * double(live_run_.stop_step - step);
        eta_label_->setText(MainWindowText::tr("ETA %1").arg(durationText(remaining)));
    } else {
        eta_label_->clear();
    }
}

void RunControls::onEvent(const RunEvent &event) {
    views_.live->addEvent(event);
    views_.log->addEvent(event);
    if (event.event.kind == "oom_recovered") {
        ++live_recoveries_;
    }
    if (event.event.kind == "out_of_memory") {
        views_.log->setDiagnosis(QString::fromStdString(event.event.message));
    }
}

void RunControls::onStateChanged(SessionState state, const QString &message) {
    views_.log->addState(live_run_.run_id, live_step_, stateText(state), message);
    QString text = stateText(state);
    if (!message.isEmpty()) {
        text += QStringLiteral(" — ") + message;
    }
    if (close_after_stop_) {
        text = MainWindowText::tr("Stopping: writing a checkpoint before quitting…");
    }
    Q_EMIT statusText(text);
    Q_EMIT actionsChanged();
}

void RunControls::onFinished(const RunResult &result) {
    progress_->hide();
    eta_label_->clear();
    views_.plan->setEditable(true);
    const bool problem = result.failure != FailureKind::None;
    if (problem && !result.message.empty()) {
        views_.log->setDiagnosis(QString::fromStdString(result.message));
        views_.tabs->setCurrentWidget(views_.log);
    }
    Q_EMIT statusText(MainWindowText::tr("Run %1: %2 at step %3 of %4")
                          .arg(result.run_id)
                          .arg(stateText(result.state))
                          .arg(result.last_step)
                          .arg(result.target_steps));
    views_.live->setCaption(
        MainWindowText::tr("Run %1 · %2").arg(result.run_id).arg(stateText(result.state)));
    refreshRuns();
    views_.runs->selectRun(result.run_id);
    Q_EMIT actionsChanged();
    if (close_after_stop_) {
        Q_EMIT closeRequested();
        return;
    }
    watcher_->watch(projectPath());
    if (isBaseModelProblem(QString::fromStdString(result.message))) {
        // After this signal has reached everyone: the question may open a dialog.
        QTimer::singleShot(0, this, [this, message = QString::fromStdString(result.message)] {
            Q_EMIT baseModelMissing(message);
        });
    }
}

void RunControls::onExternalRunFound(const RunRecord &run) {
    if (controller_->isActive()) {
        return;
    }
    watching_external_run_ = true;
    live_peak_ = 0;
    live_recoveries_ = 0;
    live_run_ = RunInfo{};
    live_run_.run_id = run.id;
    live_run_.target_steps = run.target_steps;
    live_run_.stop_step = run.target_steps;
    live_run_.device = run.device;
    views_.live->beginRun(
        run.id, MainWindowText::tr("Run %1 · being trained by another process (%2) · live")
                    .arg(run.id)
                    .arg(QString::fromStdString(run.device)));
    views_.live->setBudget(views_.plan->config().bytes("memory.budget"));
    progress_->setRange(0, int(run.target_steps));
    progress_->show();
    Q_EMIT statusText(MainWindowText::tr("Run %1 is training in another process").arg(run.id));
    views_.log->clear();
    views_.tabs->setCurrentWidget(views_.live);
    Q_EMIT actionsChanged();
}

void RunControls::onExternalRunEnded(const RunRecord &run) {
    watching_external_run_ = false;
    progress_->hide();
    eta_label_->clear();
    Q_EMIT statusText(
        MainWindowText::tr("Run %1 ended: %2").arg(run.id).arg(runStatusText(run.status)));
    views_.live->setCaption(
        MainWindowText::tr("Run %1 · %2").arg(run.id).arg(runStatusText(run.status)));
    if (!run.message.empty() && run.status != RunStatus::Finished &&
        run.status != RunStatus::Stopped) {
        views_.log->setDiagnosis(QString::fromStdString(run.message));
    }
    refreshRuns();
    Q_EMIT actionsChanged();
}

void RunControls::showStoredRun(std::int64_t run_id) {
    try {
        const Project project = Project::openForReading(projectPath().toStdString());
        const std::optional<RunRecord> run = project.run(run_id);
        if (!run) {
            return;
        }
        const RunSeries series = loadRunSeries(project, run_id);
        views_.live->showRun(series, MainWindowText::tr("Run %1 · %2 · %3 steps")
                                         .arg(run_id)
                                         .arg(runStatusText(run->status))
                                         .arg(run->last_step));
        try {
            views_.live->setBudget(Config::fromJson(run->config_json).bytes("memory.budget"));
        } catch (const std::exception &) {
            views_.live->setBudget(0);
        }
        views_.log->clear();
        for (const RunEvent &event : series.events) {
            views_.log->addEvent(event);
        }
        const bool problem = run->status == RunStatus::Paused || run->status == RunStatus::Failed;
        views_.log->setDiagnosis(problem ? QString::fromStdString(run->message) : QString());
    } catch (const std::exception &error) {
        Q_EMIT statusText(QString::fromUtf8(error.what()));
    }
}

void RunControls::refreshRuns() {
    const QString error = views_.runs->reload();
    if (!error.isEmpty()) {
        Q_EMIT statusText(error);
        return;
    }
    views_.compare->setRuns(projectPath(), views_.runs->runs());
    views_.try_view->setProject(projectPath(), views_.runs->runs());
    views_.try_view->selectRun(views_.runs->selectedRunId());
    Q_EMIT actionsChanged();
}

} // namespace headroom::ui
