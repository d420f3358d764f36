#pragma once

#include "main_window/WindowParts.h"

#include <QObject>

class QAction;

namespace headroom::ui {

class LocalRanksRun;

// Run > Start on Several Processes…: data-parallel runs on this machine. The ranks are
// headroom-cli processes (LocalRanksRun); the window follows rank 0's writes like any run
// another process trains (RunWatcher), the Live view adding a Ranks plot.
class LocalRanksControls : public QObject {
    Q_OBJECT

public:
    LocalRanksControls(const WindowViews &views, QObject *parent);

    QAction *startAction() const { return start_action_; }
    bool isRunning() const;
    // Starts `ranks` processes training the project; empty on success, else why not. The
    // caller has checked that nothing else trains the project.
    QString start(const QString &project_path, int ranks);
    bool stop(); // false when none is running

Q_SIGNALS:
    // The user asked for `ranks` processes in the menu's dialog.
    void startRequested(int ranks);
    void statusText(const QString &text);
    void actionsChanged();

private:
    WindowViews views_;
    LocalRanksRun *run_ = nullptr;
    QAction *start_action_ = nullptr;
};

} // namespace headroom::ui
