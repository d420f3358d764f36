#pragma once

#include <QCoreApplication>

#include <cstdint>

class QTabWidget;
class QWidget;

namespace headroom::ui {

class CompareView;
class LiveView;
class LogView;
class PlanView;
class ProfileView;
class RunsPanel;
class TryView;

// The window's parts translate their texts in MainWindow's context: translations/*.ts hold
// them there, from before the parts were split off MainWindow.
class MainWindowText {
    Q_DECLARE_TR_FUNCTIONS(headroom::ui::MainWindow)
};

// The widgets MainWindow lays out, as its parts get them. window: the parent of the parts'
// actions and dialogs.
struct WindowViews {
    QWidget *window = nullptr;
    QTabWidget *tabs = nullptr;
    PlanView *plan = nullptr;
    LiveView *live = nullptr;
    LogView *log = nullptr;
    CompareView *compare = nullptr;
    ProfileView *profile = nullptr;
    TryView *try_view = nullptr;
    RunsPanel *runs = nullptr;
};

// The run that exports and evaluations take: the selected one, else the latest; 0 if none.
std::int64_t exportRunId(const RunsPanel &runs);

} // namespace headroom::ui
