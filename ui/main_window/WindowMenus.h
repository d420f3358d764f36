#pragma once

#include "main_window/WindowParts.h"

#include <headroom/session.h>

#include <QObject>

class QAction;
class QMainWindow;
class QMenu;

namespace headroom::ui {

class AppSettings;

// The window's own actions (projects, run control, quit, preferences, about), the menu bar and
// the tool bar that show them beside the actions the other parts bring, and which of the
// window's actions are available. An action the window answers is a signal here.
class WindowMenus : public QObject {
    Q_OBJECT

public:
    // The other parts' actions, for the menus and the tool bar.
    struct PartActions {
        QAction *export_weights = nullptr;
        QAction *export_metrics = nullptr;
        QAction *export_hf = nullptr;
        QAction *export_adapter = nullptr;
        QAction *export_gguf = nullptr;
        QAction *locate_base = nullptr;
        QAction *start_ranks = nullptr;
        QAction *evaluate = nullptr;
    };
    // What the actions' availability depends on.
    struct State {
        bool has_project = false;
        bool has_runs = false;
        bool active = false; // this window trains a run
        SessionState session = SessionState::Idle;
        bool stop_requested = false;
        bool busy = false; // a run trains the project, in this window or in other processes
        bool ranks_running = false;
        bool profiling = false;
    };

    // Adds the menus and the tool bar to `window`, which parents the actions and dialogs.
    WindowMenus(QMainWindow *window, AppSettings &settings, const PartActions &parts);

    void update(const State &state);
    void updateRecentMenu();
    QAction *pauseAction() const { return pause_action_; }
    QAction *resumeAction() const { return resume_action_; }

Q_SIGNALS:
    void newProjectRequested();
    void openProjectRequested();
    void recentProjectChosen(const QString &path);
    void saveAsRequested();
    void reloadRequested();
    void startRequested(bool continue_last);
    void pauseRequested();
    void resumeRequested();
    void stopRequested();

private:
    void createActions();
    void createMenus(const PartActions &parts);
    void createToolBar(const PartActions &parts);
    void showAbout();

    QMainWindow *window_;
    AppSettings &settings_;
    QAction *new_action_ = nullptr;
    QAction *open_action_ = nullptr;
    QAction *save_as_action_ = nullptr;
    QAction *reload_action_ = nullptr;
    QAction *quit_action_ = nullptr;
    QAction *start_action_ = nullptr;
    QAction *continue_action_ = nullptr;
    QAction *pause_action_ = nullptr;
    QAction *resume_action_ = nullptr;
    QAction *stop_action_ = nullptr;
    QAction *about_action_ = nullptr;
    QMenu *recent_menu_ = nullptr;
};

} // namespace headroom::ui
