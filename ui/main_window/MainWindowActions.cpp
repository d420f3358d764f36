// MainWindow: actions, menus, toolbar, status bar and the dialogs behind them.
#include "look/PreferencesDialog.h"
#include "look/Theme.h"
#include "main_window/EmptyProjectView.h"
#include "main_window/LocalRanksControls.h"
#include "main_window/MainWindow.h"
#include "main_window/PretrainedControls.h"
#include "main_window/RunControls.h"
#include "main_window/RunExports.h"
#include "runs/RunWatcher.h"
#include "runs/SessionController.h"
#include "views/ProfileView.h"
#include "views/RunsPanel.h"

#include <headroom/version.h>

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QStatusBar>
#include <QToolBar>

#include <utility>

namespace headroom::ui {

void MainWindow::createActions() {
    new_action_ = new QAction(tr("&New Project…"), this);
    new_action_->setShortcut(QKeySequence::New);
    new_action_->setStatusTip(tr(
        "Create a project from a text or CSV file, optionally starting from a pretrained model"));
    connect(new_action_, &QAction::triggered, this, [this] { showNewProjectDialog(); });
    connect(empty_view_, &EmptyProjectView::newProjectRequested, this,
            [this] { showNewProjectDialog(); });

    open_action_ = new QAction(tr("&Open Project…"), this);
    open_action_->setShortcut(QKeySequence::Open);
    open_action_->setStatusTip(tr("Open a Headroom project file"));
    connect(open_action_, &QAction::triggered, this, &MainWindow::chooseProjectToOpen);
    connect(empty_view_, &EmptyProjectView::openProjectRequested, this,
            &MainWindow::chooseProjectToOpen);

    save_as_action_ = new QAction(tr("Save Project &As…"), this);
    save_as_action_->setShortcut(QKeySequence::SaveAs);
    save_as_action_->setStatusTip(tr("Copy the project, its runs and checkpoints to a new file"));
    connect(save_as_action_, &QAction::triggered, this, &MainWindow::chooseSaveAsPath);

    reload_action_ = new QAction(tr("&Reload Project"), this);
    reload_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    connect(reload_action_, &QAction::triggered, run_, &RunControls::refreshRuns);

    exports_ = new RunExports(views(), this);
    connect(exports_, &RunExports::evaluationFinished, this, &MainWindow::evaluationFinished);
    connect(exports_, &RunExports::statusText, this, &MainWindow::showStatus);
    connect(exports_, &RunExports::actionsChanged, this, &MainWindow::updateActions);

    quit_action_ = new QAction(tr("&Quit"), this);
    quit_action_->setShortcut(QKeySequence::Quit);
    quit_action_->setMenuRole(QAction::QuitRole);
    connect(quit_action_, &QAction::triggered, this, &QWidget::close);

    start_action_ = new QAction(tr("&Start Training"), this);
    start_action_->setShortcut(Qt::Key_F5);
    start_action_->setStatusTip(tr("Start a new run with the project's settings"));
    connect(start_action_, &QAction::triggered, this, [this] {
        const QString error = startRun();
        if (!error.isEmpty()) {
            QMessageBox::warning(this, tr("Cannot start"), error);
        }
    });
    continue_action_ = new QAction(tr("&Continue Last Run"), this);
    continue_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F5));
    continue_action_->setStatusTip(tr("Continue the latest run from its last checkpoint"));
    connect(continue_action_, &QAction::triggered, this, [this] {
        const QString error = startRun(true);
        if (!error.isEmpty()) {
            QMessageBox::warning(this, tr("Cannot continue"), error);
        }
    });
    pause_action_ = new QAction(tr("&Pause"), this);
    pause_action_->setShortcut(Qt::Key_F6);
    pause_action_->setStatusTip(tr("Pause after the current optimizer step"));
    connect(pause_action_, &QAction::triggered, this, &MainWindow::pauseRun);
    resume_action_ = new QAction(tr("&Resume"), this);
    resume_action_->setShortcut(Qt::Key_F7);
    connect(resume_action_, &QAction::triggered, this, &MainWindow::resumeRun);
    stop_action_ = new QAction(tr("S&top"), this);
    stop_action_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    stop_action_->setStatusTip(tr("Stop cleanly: the run writes a checkpoint first"));
    connect(stop_action_, &QAction::triggered, this, &MainWindow::stopRun);
    ranks_ = new LocalRanksControls(views(), this);
    connect(ranks_, &LocalRanksControls::startRequested, this, [this](int ranks) {
        const QString error = startLocalRanks(ranks);
        if (!error.isEmpty()) {
            QMessageBox::warning(this, tr("Cannot start"), error);
        }
    });
    connect(ranks_, &LocalRanksControls::statusText, this, &MainWindow::showStatus);
    connect(ranks_, &LocalRanksControls::actionsChanged, this, &MainWindow::updateActions);

    const std::pair<QAction *, const char *> icons[] = {
        {new_action_, "document-new"},           {open_action_, "document-open"},
        {start_action_, "media-playback-start"}, {continue_action_, "media-playback-start"},
        {pause_action_, "media-playback-pause"}, {resume_action_, "headroom-run-resume"},
        {stop_action_, "media-playback-stop"},
    };
    for (const auto &[action, name] : icons) {
        action->setIcon(actionIcon(QString::fromLatin1(name)));
    }

    pretrained_ = new PretrainedControls(
        views(), settings_, [this] { return run_->isWritingProject(); }, this);
    connect(pretrained_, &PretrainedControls::exportFinished, this, &MainWindow::exportFinished);
    connect(pretrained_, &PretrainedControls::baseModelChanged, run_, &RunControls::refreshRuns);
    connect(pretrained_, &PretrainedControls::statusText, this, &MainWindow::showStatus);
    connect(pretrained_, &PretrainedControls::actionsChanged, this, &MainWindow::updateActions);

    about_action_ = new QAction(tr("&About Headroom"), this);
    about_action_->setMenuRole(QAction::AboutRole);
    connect(about_action_, &QAction::triggered, this, &MainWindow::showAbout);
}

void MainWindow::createMenus() {
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(new_action_);
    file->addAction(open_action_);
    recent_menu_ = file->addMenu(tr("Open &Recent"));
    recent_menu_->setObjectName(QStringLiteral("recentMenu"));
    file->addAction(save_as_action_);
    file->addAction(reload_action_);
    file->addSeparator();
    QMenu *export_menu = file->addMenu(tr("E&xport"));
    export_menu->addAction(exports_->exportWeightsAction());
    export_menu->addAction(exports_->exportMetricsAction());
    export_menu->addSeparator();
    export_menu->addAction(pretrained_->exportHfAction());
    export_menu->addAction(pretrained_->exportAdapterAction());
    export_menu->setToolTipsVisible(true); // why an export is unavailable
    file->addSeparator();
    // Settings > Preferences on Linux/Windows menus; Qt moves it to the application menu on
    // macOS (PreferencesRole).
    QAction *preferences = file->addAction(tr("&Preferences…"));
    preferences->setObjectName(QStringLiteral("preferencesAction"));
    preferences->setShortcut(QKeySequence::Preferences);
    preferences->setMenuRole(QAction::PreferencesRole);
    connect(preferences, &QAction::triggered, this, [this] {
        PreferencesDialog dialog(this);
        dialog.exec();
    });
    file->addSeparator();
    file->addAction(quit_action_);

    QMenu *project = menuBar()->addMenu(tr("Pro&ject"));
    project->setToolTipsVisible(true);
    project->addAction(pretrained_->locateBaseAction());

    QMenu *run = menuBar()->addMenu(tr("&Run"));
    run->addAction(start_action_);
    run->addAction(continue_action_);
    run->addAction(ranks_->startAction());
    run->addSeparator();
    run->addAction(pause_action_);
    run->addAction(resume_action_);
    run->addAction(stop_action_);
    run->addSeparator();
    run->addAction(exports_->evaluateAction());

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(about_action_);
}

void MainWindow::createToolBar() {
    QToolBar *toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolBar"));
    toolbar->setMovable(false);
#ifdef Q_OS_MACOS
    toolbar->setToolButtonStyle(Qt::ToolButtonTextUnderIcon); // as Finder and Xcode do
#else
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
#endif
    toolbar->addAction(new_action_);
    toolbar->addAction(open_action_);
    toolbar->addSeparator();
    toolbar->addAction(start_action_);
    toolbar->addAction(pause_action_);
    toolbar->addAction(resume_action_);
    toolbar->addAction(stop_action_);
    toolbar->addSeparator();
    toolbar->addAction(exports_->exportWeightsAction());
}

void MainWindow::createStatusBar() {
    run_state_label_ = new QLabel(tr("No project"), this);
    run_state_label_->setObjectName(QStringLiteral("runStateLabel"));
    device_label_ = new QLabel(this);
    device_label_->setObjectName(QStringLiteral("deviceLabel"));
    statusBar()->addWidget(run_state_label_, 1);
    statusBar()->addPermanentWidget(run_->progressBar());
    statusBar()->addPermanentWidget(run_->etaLabel());
    statusBar()->addPermanentWidget(device_label_);
}

void MainWindow::updateRecentMenu() {
    recent_menu_->clear();
    const QStringList recent = settings_.recentProjects();
    for (int i = 0; i < recent.size(); ++i) {
        const QString &path = recent.at(i);
        QAction *action = recent_menu_->addAction(
            QStringLiteral("&%1 %2").arg(i + 1).arg(QDir::toNativeSeparators(path)));
        connect(action, &QAction::triggered, this, [this, path] {
            if (!QFileInfo::exists(path)) {
                settings_.removeRecentProject(path);
                updateRecentMenu();
            }
            openProjectInteractively(path);
        });
    }
    recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::updateActions() {
    const bool has_project = !projectPath().isEmpty();
    const bool active = run_->isActive();
    const SessionState state = run_->controller()->state();
    const bool ranks_running = ranks_->isRunning();
    const bool busy = active || run_->isWatchingExternalRun() || ranks_running;
    const bool profiling = profile_view_->isProfiling();
    const bool has_runs = runs_panel_->runCount() > 0;
    start_action_->setEnabled(has_project && !busy && !profiling);
    continue_action_->setEnabled(has_project && !busy && !profiling && has_runs);
    profile_view_->setBlocked(busy);
    pause_action_->setEnabled(active && state == SessionState::Running &&
                              !run_->controller()->isStopRequested());
    resume_action_->setEnabled(active && state == SessionState::Paused &&
                               !run_->controller()->isStopRequested());
    stop_action_->setEnabled((active && !run_->controller()->isStopRequested()) || ranks_running);
    ranks_->startAction()->setEnabled(has_project && !busy && !profiling);
    save_as_action_->setEnabled(has_project && !busy);
    reload_action_->setEnabled(has_project);
    exports_->updateActions(has_project, has_runs, active);
    pretrained_->updateActions(has_project, active);
    open_action_->setEnabled(!active && !profiling);
    new_action_->setEnabled(!active && !profiling);
    recent_menu_->setEnabled(!active && !profiling && !settings_.recentProjects().isEmpty());
}

void MainWindow::chooseProjectToOpen() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Project"), settings_.get(settings::kLastDirectory),
        tr("Headroom projects (*.headroom);;All files (*)"));
    if (!path.isEmpty()) {
        openProjectInteractively(path);
    }
}

void MainWindow::chooseSaveAsPath() {
    QString path = QFileDialog::getSaveFileName(this, tr("Save Project As"),
                                                QFileInfo(projectPath()).absolutePath(),
                                                tr("Headroom projects (*.headroom)"));
    if (path.isEmpty()) {
        return;
    }
    if (QFileInfo(path).suffix().isEmpty()) {
        path += QStringLiteral(".headroom");
    }
    const QString error = saveProjectAs(path);
    if (!error.isEmpty()) {
        QMessageBox::warning(this, tr("Save Project As"), error);
    }
}

void MainWindow::showAbout() {
    QMessageBox::about(
        this, tr("About Headroom"),
        tr("<h3>Headroom %1</h3><p>Train real models on the hardware you have, without "
           "out-of-memory errors.</p>")
            .arg(QString::fromLatin1(kVersion)));
}

} // namespace headroom::ui
