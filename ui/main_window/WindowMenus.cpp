#include "main_window/WindowMenus.h"

#include "look/AppSettings.h"
#include "look/PreferencesDialog.h"
#include "look/Theme.h"

#include <headroom/version.h>

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenuBar>
#include <QMessageBox>
#include <QToolBar>

#include <utility>

namespace headroom::ui {

WindowMenus::WindowMenus(QMainWindow *window, AppSettings &settings, const PartActions &parts)
    : QObject(window), window_(window), settings_(settings) {
    createActions();
    createMenus(parts);
    createToolBar(parts);
}

void WindowMenus::createActions() {
    new_action_ = new QAction(MainWindowText::tr("&New Project…"), window_);
    new_action_->setShortcut(QKeySequence::New);
    new_action_->setStatusTip(MainWindowText::tr(
        "Create a project from a text or CSV file, optionally starting from a pretrained model"));
    connect(new_action_, &QAction::triggered, this, &WindowMenus::newProjectRequested);

    open_action_ = new QAction(MainWindowText::tr("&Open Project…"), window_);
    open_action_->setShortcut(QKeySequence::Open);
    open_action_->setStatusTip(MainWindowText::tr("Open a Headroom project file"));
    connect(open_action_, &QAction::triggered, this, &WindowMenus::openProjectRequested);

    save_as_action_ = new QAction(MainWindowText::tr("Save Project &As…"), window_);
    save_as_action_->setShortcut(QKeySequence::SaveAs);
    save_as_action_->setStatusTip(
        MainWindowText::tr("Copy the project, its runs and checkpoints to a new file"));
    connect(save_as_action_, &QAction::triggered, this, &WindowMenus::saveAsRequested);

    reload_action_ = new QAction(MainWindowText::tr("&Reload Project"), window_);
    reload_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    connect(reload_action_, &QAction::triggered, this, &WindowMenus::reloadRequested);

    quit_action_ = new QAction(MainWindowText::tr("&Quit"), window_);
    quit_action_->setShortcut(QKeySequence::Quit);
    quit_action_->setMenuRole(QAction::QuitRole);
    connect(quit_action_, &QAction::triggered, window_, &QWidget::close);

    start_action_ = new QAction(MainWindowText::tr("&Start Training"), window_);
    start_action_->setShortcut(Qt::Key_F5);
    start_action_->setStatusTip(MainWindowText::tr("Start a new run with the project's settings"));
    connect(start_action_, &QAction::triggered, this, [this] { Q_EMIT startRequested(false); });
    continue_action_ = new QAction(MainWindowText::tr("&Continue Last Run"), window_);
    continue_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F5));
    continue_action_->setStatusTip(
        MainWindowText::tr("Continue the latest run from its last checkpoint"));
    connect(continue_action_, &QAction::triggered, this, [this] { Q_EMIT startRequested(true); });
    pause_action_ = new QAction(MainWindowText::tr("&Pause"), window_);
    pause_action_->setShortcut(Qt::Key_F6);
    pause_action_->setStatusTip(MainWindowText::tr("Pause after the current optimizer step"));
    connect(pause_action_, &QAction::triggered, this, &WindowMenus::pauseRequested);
    resume_action_ = new QAction(MainWindowText::tr("&Resume"), window_);
    resume_action_->setShortcut(Qt::Key_F7);
    connect(resume_action_, &QAction::triggered, this, &WindowMenus::resumeRequested);
    stop_action_ = new QAction(MainWindowText::tr("S&top"), window_);
    stop_action_->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    stop_action_->setStatusTip(
        MainWindowText::tr("Stop cleanly: the run writes a checkpoint first"));
    connect(stop_action_, &QAction::triggered, this, &WindowMenus::stopRequested);

    const std::pair<QAction *, const char *> icons[] = {
        {new_action_, "document-new"},           {open_action_, "document-open"},
        {start_action_, "media-playback-start"}, {continue_action_, "media-playback-start"},
        {pause_action_, "media-playback-pause"}, {resume_action_, "headroom-run-resume"},
        {stop_action_, "media-playback-stop"},
    };
    for (const auto &[action, name] : icons) {
        action->setIcon(actionIcon(QString::fromLatin1(name)));
    }

    about_action_ = new QAction(MainWindowText::tr("&About Headroom"), window_);
    about_action_->setMenuRole(QAction::AboutRole);
    connect(about_action_, &QAction::triggered, this, &WindowMenus::showAbout);
}

void WindowMenus::createMenus(const PartActions &parts) {
    QMenuBar *bar = window_->menuBar();
    QMenu *file = bar->addMenu(MainWindowText::tr("&File"));
    file->addAction(new_action_);
    file->addAction(open_action_);
    recent_menu_ = file->addMenu(MainWindowText::tr("Open &Recent"));
    recent_menu_->setObjectName(QStringLiteral("recentMenu"));
    file->addAction(save_as_action_);
    file->addAction(reload_action_);
    file->addSeparator();
    QMenu *export_menu = file->addMenu(MainWindowText::tr("E&xport"));
    export_menu->addAction(parts.export_weights);
    export_menu->addAction(parts.export_metrics);
    export_menu->addSeparator();
    export_menu->addAction(parts.export_hf);
    export_menu->addAction(parts.export_adapter);
    export_menu->addAction(parts.export_gguf);
    export_menu->setToolTipsVisible(true); // why an export is unavailable
    file->addSeparator();
    // Settings > Preferences on Linux/Windows menus; Qt moves it to the application menu on
    // macOS (PreferencesRole).
    QAction *preferences = file->addAction(MainWindowText::tr("&Preferences…"));
    preferences->setObjectName(QStringLiteral("preferencesAction"));
    preferences->setShortcut(QKeySequence::Preferences);
    preferences->setMenuRole(QAction::PreferencesRole);
    connect(preferences, &QAction::triggered, this, [this] {
        PreferencesDialog dialog(window_);
        dialog.exec();
    });
    file->addSeparator();
    file->addAction(quit_action_);

    QMenu *project = bar->addMenu(MainWindowText::tr("Pro&ject"));
    project->setToolTipsVisible(true);
    project->addAction(parts.locate_base);

    QMenu *run = bar->addMenu(MainWindowText::tr("&Run"));
    run->addAction(start_action_);
    run->addAction(continue_action_);
    run->addAction(parts.start_ranks);
    run->addSeparator();
    run->addAction(pause_action_);
    run->addAction(resume_action_);
    run->addAction(stop_action_);
    run->addSeparator();
    run->addAction(parts.evaluate);

    QMenu *help = bar->addMenu(MainWindowText::tr("&Help"));
    help->addAction(about_action_);
}

void WindowMenus::createToolBar(const PartActions &parts) {
    QToolBar *toolbar = window_->addToolBar(MainWindowText::tr("Main"));
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
    toolbar->addAction(parts.export_weights);
}

void WindowMenus::updateRecentMenu() {
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
            Q_EMIT recentProjectChosen(path);
        });
    }
    recent_menu_->setEnabled(!recent.isEmpty());
}

void WindowMenus::update(const State &state) {
    const bool can_start = state.has_project && !state.busy && !state.profiling;
    start_action_->setEnabled(can_start);
    continue_action_->setEnabled(can_start && state.has_runs);
    pause_action_->setEnabled(state.active && state.session == SessionState::Running &&
                              !state.stop_requested);
    resume_action_->setEnabled(state.active && state.session == SessionState::Paused &&
                               !state.stop_requested);
    stop_action_->setEnabled((state.active && !state.stop_requested) || state.ranks_running);
    save_as_action_->setEnabled(state.has_project && !state.busy);
    reload_action_->setEnabled(state.has_project);
    open_action_->setEnabled(!state.active && !state.profiling);
    new_action_->setEnabled(!state.active && !state.profiling);
    recent_menu_->setEnabled(!state.active && !state.profiling &&
                             !settings_.recentProjects().isEmpty());
}

void WindowMenus::showAbout() {
    QMessageBox::about(
        window_, MainWindowText::tr("About Headroom"),
        MainWindowText::tr("<h3>Headroom %1</h3><p>Train real models on the hardware you have, "
                           "without out-of-memory errors.</p>")
            .arg(QString::fromLatin1(kVersion)));
}

} // namespace headroom::ui
