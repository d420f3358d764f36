#pragma once

#include "main_window/WindowParts.h"
#include "runs/RunSeries.h"

#include <headroom/session.h>

#include <QObject>

#include <cstdint>

class QLabel;
class QProgressBar;

namespace headroom::ui {

class RunWatcher;
class SessionController;

// The runs the window shows: the one it trains (SessionController), one another process
// trains (RunWatcher), or a stored one picked in the Project panel; their progress and ETA in
// the status bar.
class RunControls : public QObject {
    Q_OBJECT

public:
    RunControls(const WindowViews &views, QObject *parent);

    SessionController *controller() const { return controller_; }
    RunWatcher *watcher() const { return watcher_; }
    // For the status bar.
    QProgressBar *progressBar() const { return progress_; }
    QLabel *etaLabel() const { return eta_label_; }

    bool isActive() const; // this window trains a run
    bool isWatchingExternalRun() const { return watching_external_run_; }
    bool isWritingProject() const { return isActive() || watching_external_run_; }

    // Starts a run of the open project; the caller has checked that none trains it.
    void start(bool continue_last);
    void pause();
    void resume();
    void stop();
    // Stops the run; when it has written its checkpoint, closeRequested asks to close.
    void stopForClosing();
    bool isStoppingForClosing() const { return close_after_stop_; }

    // Follows the project just opened: a run another process trains, else its latest run.
    void followProject(const QString &path);
    void stopWatching();
    void refreshRuns();

Q_SIGNALS:
    void statusText(const QString &text);
    void actionsChanged();
    // A run ended because the project's base model is gone (sent once the end has been
    // handled, so that a dialog may open).
    void baseModelMissing(const QString &message);
    void closeRequested();

private:
    QString projectPath() const;
    void onRunStarted(const RunInfo &info);
    void onSteps(const QVector<StepMetrics> &steps);
    void onEvent(const RunEvent &event);
    void onStateChanged(SessionState state, const QString &message);
    void onFinished(const RunResult &result);
    void onExternalRunFound(const RunRecord &run);
    void onExternalRunEnded(const RunRecord &run);
    void showStoredRun(std::int64_t run_id);
    void updateProgress(std::int64_t step);

    WindowViews views_;
    SessionController *controller_ = nullptr;
    RunWatcher *watcher_ = nullptr;
    QProgressBar *progress_ = nullptr;
    QLabel *eta_label_ = nullptr;

    bool close_after_stop_ = false;
    bool watching_external_run_ = false;
    RunInfo live_run_;
    std::int64_t live_step_ = 0;
    std::uint64_t live_peak_ = 0;
    std::int64_t live_recoveries_ = 0;
};

} // namespace headroom::ui
