// MainWindow: run control, what the engine bridge and the run watcher report.
#include "main_window/LocalRanksControls.h"
#include "main_window/MainWindow.h"
#include "main_window/PretrainedControls.h"
#include "runs/RunWatcher.h"
#include "runs/SessionController.h"
#include "views/CompareView.h"
#include "views/LiveView.h"
#include "views/LogView.h"
#include "views/PlanView.h"
#include "views/ProfileView.h"
#include "views/RunsPanel.h"
#include "views/TryView.h"

#include <headroom/workflow.h>

#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QTabWidget>
#include <QTimer>

#include <cmath>
#include <memory>

namespace headroom::ui {

namespace {
QString stateText(SessionState state) {
    switch (state) {
    case SessionState::Idle:
        return MainWindow::tr("Idle");
    case SessionState::Preparing:
        return MainWindow::tr("Preparing");
    case SessionState::Running:
        return MainWindow::tr("Training");
    case SessionState::Paused:
        return MainWindow::tr("Paused");
    case SessionState::Stopping:
        return MainWindow::tr("Stopping");
    case SessionState::Finished:
        return MainWindow::tr("Finished");
    case SessionState::Stopped:
        return MainWindow::tr("Stopped");
    case SessionState::Failed:
        return MainWindow::tr("Failed");
    }
    return {};
}

QString durationText(double seconds) {
    const qint64 total = qint64(seconds + 0.5);
    if (total >= 3600) {
        return MainWindow::tr("%1 h %2 min").arg(total / 3600).arg((total % 3600) / 60);
    }
    if (total >= 60) {
        return MainWindow::tr("%1 min %2 s").arg(total / 60).arg(total % 60);
    }
    return MainWindow::tr("%1 s").arg(total);
}
} // namespace

void MainWindow::connectRunSignals() {
    connect(controller_, &SessionController::runStarted, this, &MainWindow::onRunStarted);
    connect(controller_, &SessionController::stepsArrived, this, &MainWindow::onSteps);
    connect(controller_, &SessionController::evalsArrived, live_view_, &LiveView::appendEvals);
    connect(controller_, &SessionController::eventArrived, this, [this](const EngineEvent &event) {
        onEvent(RunEvent{live_run_.run_id, event, QDateTime::currentDateTime()});
    });
    connect(controller_, &SessionController::stateChanged, this, &MainWindow::onStateChanged);
    connect(controller_, &SessionController::finished, this, &MainWindow::onFinished);

    connect(watcher_, &RunWatcher::runFound, this, &MainWindow::onExternalRunFound);
    connect(watcher_, &RunWatcher::stepsArrived, this, &MainWindow::onSteps);
    connect(watcher_, &RunWatcher::evalsArrived, live_view_, &LiveView::appendEvals);
    connect(watcher_, &RunWatcher::eventArrived, this, &MainWindow::onEvent);
    connect(watcher_, &RunWatcher::runEnded, this, &MainWindow::onExternalRunEnded);
    connect(watcher_, &RunWatcher::runsChanged, this, [this] {
        if (controller_->isActive()) {
            return;
        }
        const std::int64_t newest_before =
            runs_panel_->runs().empty() ? 0 : runs_panel_->runs().back().id;
        refreshRuns();
        const std::int64_t newest = runs_panel_->runs().empty() ? 0 : runs_panel_->runs().back().id;
        if (newest > newest_before && !watching_external_run_ && newest_before != 0) {
            runs_panel_->selectRun(newest);
            showStoredRun(newest); // started and ended between two polls
        }
    });

    connect(runs_panel_, &RunsPanel::runSelected, this, [this](std::int64_t run_id) {
        if (!controller_->isActive() && !watching_external_run_) {
            showStoredRun(run_id);
        }
        try_view_->selectRun(run_id);
        updateActions(); // the exports follow the selected run
    });
    connect(profile_view_, &ProfileView::profilingChanged, this, [this] { updateActions(); });
    connect(plan_view_, &PlanView::configChanged, this,
            [this] { live_view_->setBudget(plan_view_->config().bytes("memory.budget")); });
}

QString MainWindow::whyNoRunCanStart() const {
    if (projectPath().isEmpty()) {
        return tr("Open or create a project first.");
    }
    if (controller_->isActive() || watching_external_run_ || ranks_->isRunning()) {
        return tr("A run is already training this project.");
    }
    if (profile_view_->isProfiling()) {
        return tr("A profile is running: start the run when it has ended.");
    }
    return {};
}

QString MainWindow::startRun(bool continue_last) {
    if (const QString why = whyNoRunCanStart(); !why.isEmpty()) {
        return why;
    }
    SessionRequest request;
    request.project_path = projectPath().toStdString();
    request.resume = continue_last;
    watcher_->stopWatching();
    live_run_ = RunInfo{};
    live_step_ = 0;
    live_peak_ = 0;
    live_recoveries_ = 0;
    live_view_->beginRun(0, tr("Preparing a run…"));
    live_view_->setBudget(plan_view_->config().bytes("memory.budget"));
    log_view_->setDiagnosis({});
    plan_view_->setEditable(false);
    controller_->start(request);
    tabs_->setCurrentWidget(live_view_);
    updateActions();
    return {};
}

QString MainWindow::startLocalRanks(int ranks) {
    if (const QString why = whyNoRunCanStart(); !why.isEmpty()) {
        return why;
    }
    return ranks_->start(projectPath(), ranks);
}

void MainWindow::pauseRun() {
    controller_->pause();
    run_state_label_->setText(tr("Pausing after this step…"));
    pause_action_->setEnabled(false);
}

void MainWindow::resumeRun() {
    controller_->resume();
    resume_action_->setEnabled(false);
}

void MainWindow::stopRun() {
    if (!controller_->isActive() && ranks_->stop()) {
        updateActions();
        return;
    }
    controller_->stop();
    run_state_label_->setText(tr("Stopping: writing a checkpoint…"));
    updateActions();
}

void MainWindow::onRunStarted(const RunInfo &info) {
    live_run_ = info;
    live_view_->beginRun(info.run_id, tr("Run %1 · %2 · %3")
                                          .arg(info.run_id)
                                          .arg(QString::fromStdString(info.model),
                                               QString::fromStdString(info.device)));
    progress_->setRange(int(info.start_step), int(info.stop_step));
    progress_->setValue(int(info.start_step));
    progress_->show();
    refreshRuns();
    runs_panel_->selectRun(info.run_id);
}

void MainWindow::onSteps(const QVector<StepMetrics> &steps) {
    if (watching_external_run_ && live_view_->series().steps.isEmpty() && !steps.isEmpty()) {
        // A run found mid-way (or resumed): its timing starts at its first step.
        live_run_.start_step = steps.first().step - 1;
        progress_->setMinimum(int(live_run_.start_step));
    }
    live_view_->appendSteps(steps);
    if (!steps.isEmpty()) {
        updateProgress(steps.last().step);
        for (const StepMetrics &step : steps) {
            live_peak_ = std::max(live_peak_, step.mem_peak);
        }
        runs_panel_->showLiveProgress(live_view_->runId(), steps.last().step,
                                      live_run_.target_steps, steps.last().loss, live_peak_,
                                      live_recoveries_);
    }
}

void MainWindow::updateProgress(std::int64_t step) {
    live_step_ = step;
    progress_->setValue(int(step));
    const RunSeries &series = live_view_->series();
    const std::int64_t done = step - live_run_.start_step;
    const double elapsed = series.elapsed_s.isEmpty() ? 0 : series.elapsed_s.last();
    if (done > 0 && elapsed > 0 && live_run_.stop_step > step) {
        const double remaining = elapsed / double(done) * double(live_run_.stop_step - step);
        eta_label_->setText(tr("ETA %1").arg(durationText(remaining)));
    } else {
        eta_label_->clear();
    }
}

void MainWindow::onEvent(const RunEvent &event) {
    live_view_->addEvent(event);
    log_view_->addEvent(event);
    if (event.event.kind == "oom_recovered") {
        ++live_recoveries_;
    }
    if (event.event.kind == "out_of_memory") {
        log_view_->setDiagnosis(QString::fromStdString(event.event.message));
    }
}

void MainWindow::onStateChanged(SessionState state, const QString &message) {
    log_view_->addState(live_run_.run_id, live_step_, stateText(state), message);
    QString text = stateText(state);
    if (!message.isEmpty()) {
        text += QStringLiteral(" — ") + message;
    }
    if (close_after_stop_) {
        text = tr("Stopping: writing a checkpoint before quitting…");
    }
    run_state_label_->setText(text);
    updateActions();
}

void MainWindow::onFinished(const RunResult &result) {
    progress_->hide();
    eta_label_->clear();
    plan_view_->setEditable(true);
    const bool problem = result.failure != FailureKind::None;
    if (problem && !result.message.empty()) {
        log_view_->setDiagnosis(QString::fromStdString(result.message));
        tabs_->setCurrentWidget(log_view_);
    }
    run_state_label_->setText(tr("Run %1: %2 at step %3 of %4")
                                  .arg(result.run_id)
                                  .arg(stateText(result.state))
                                  .arg(result.last_step)
                                  .arg(result.target_steps));
    live_view_->setCaption(tr("Run %1 · %2").arg(result.run_id).arg(stateText(result.state)));
    refreshRuns();
    runs_panel_->selectRun(result.run_id);
    updateActions();
    if (close_after_stop_) {
        close();
        return;
    }
    watcher_->watch(projectPath());
    if (isBaseModelProblem(QString::fromStdString(result.message))) {
        // After this signal has reached everyone: the question may open a dialog.
        QTimer::singleShot(0, this, [this, message = QString::fromStdString(result.message)] {
            pretrained_->offerLocateBase(message, [this] {
                const QString error = startRun();
                if (!error.isEmpty()) {
                    run_state_label_->setText(error);
                }
            });
        });
    }
}

void MainWindow::onExternalRunFound(const RunRecord &run) {
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
    live_view_->beginRun(run.id, tr("Run %1 · being trained by another process (%2) · live")
                                     .arg(run.id)
                                     .arg(QString::fromStdString(run.device)));
    live_view_->setBudget(plan_view_->config().bytes("memory.budget"));
    progress_->setRange(0, int(run.target_steps));
    progress_->show();
    run_state_label_->setText(tr("Run %1 is training in another process").arg(run.id));
    log_view_->clear();
    tabs_->setCurrentWidget(live_view_);
    updateActions();
}

void MainWindow::onExternalRunEnded(const RunRecord &run) {
    watching_external_run_ = false;
    progress_->hide();
    eta_label_->clear();
    run_state_label_->setText(tr("Run %1 ended: %2").arg(run.id).arg(runStatusText(run.status)));
    live_view_->setCaption(tr("Run %1 · %2").arg(run.id).arg(runStatusText(run.status)));
    if (!run.message.empty() && run.status != RunStatus::Finished &&
        run.status != RunStatus::Stopped) {
        log_view_->setDiagnosis(QString::fromStdString(run.message));
    }
    refreshRuns();
    updateActions();
}

void MainWindow::showStoredRun(std::int64_t run_id) {
    try {
        const Project project = Project::openForReading(projectPath().toStdString());
        const std::optional<RunRecord> run = project.run(run_id);
        if (!run) {
            return;
        }
        const RunSeries series = loadRunSeries(project, run_id);
        live_view_->showRun(series, tr("Run %1 · %2 · %3 steps")
                                        .arg(run_id)
                                        .arg(runStatusText(run->status))
                                        .arg(run->last_step));
        try {
            live_view_->setBudget(Config::fromJson(run->config_json).bytes("memory.budget"));
        } catch (const std::exception &) {
            live_view_->setBudget(0);
        }
        log_view_->clear();
        for (const RunEvent &event : series.events) {
            log_view_->addEvent(event);
        }
        const bool problem = run->status == RunStatus::Paused || run->status == RunStatus::Failed;
        log_view_->setDiagnosis(problem ? QString::fromStdString(run->message) : QString());
    } catch (const std::exception &error) {
        run_state_label_->setText(QString::fromUtf8(error.what()));
    }
}

void MainWindow::refreshRuns() {
    const QString error = runs_panel_->reload();
    if (!error.isEmpty()) {
        run_state_label_->setText(error);
        return;
    }
    compare_view_->setRuns(projectPath(), runs_panel_->runs());
    try_view_->setProject(projectPath(), runs_panel_->runs());
    try_view_->selectRun(runs_panel_->selectedRunId());
    updateActions();
}

} // namespace headroom::ui
