#pragma once

#include "EngineMetaTypes.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>
#include <QVector>

#include <memory>
#include <thread>

namespace headroom::ui {

// The only thing in the UI that touches a training Session. The session trains on its own
// engine thread; its observer callbacks copy what they report into an inbox and post at most
// one queued wake-up at a time, and the UI thread drains the inbox in batches (no more often
// than every kMinDrainIntervalMs), so a fast run never floods the event loop. A second
// thread waits for the engine thread to return and posts finished(): the UI thread never
// blocks on the engine, except in the destructor (stop, then join).
class SessionController : public QObject {
    Q_OBJECT

public:
    static constexpr int kMinDrainIntervalMs = 30;

    explicit SessionController(QObject *parent = nullptr);
    ~SessionController() override;

    // Starts a session; returns false (and does nothing) while one is active.
    bool start(const SessionRequest &request);
    void pause();
    void resume();
    // Asks the run to stop cleanly with a checkpoint; finished() follows.
    void stop();

    // A session exists and finished() has not been emitted for it yet.
    bool isActive() const { return session_ != nullptr; }
    bool isStopRequested() const { return stop_requested_; }
    // The latest state delivered on the UI thread.
    SessionState state() const { return state_; }
    const RunInfo &runInfo() const { return run_info_; }

Q_SIGNALS:
    void runStarted(const headroom::RunInfo &info);
    // Steps in order; one signal per drained batch.
    void stepsArrived(const QVector<headroom::StepMetrics> &steps);
    void evalsArrived(const QVector<headroom::EvalMetrics> &evals);
    void eventArrived(const headroom::EngineEvent &event);
    void stateChanged(headroom::SessionState state, const QString &message);
    void finished(const headroom::RunResult &result);

private:
    struct Inbox;
    class Observer;

    void wake();
    void drain();
    void onSessionReturned(const RunResult &result);

    std::shared_ptr<Inbox> inbox_;
    std::unique_ptr<Observer> observer_;
    std::unique_ptr<Session> session_;
    std::thread reaper_;
    QTimer drain_timer_;
    QElapsedTimer since_drain_;
    SessionState state_ = SessionState::Idle;
    RunInfo run_info_;
    bool stop_requested_ = false;
};

} // namespace headroom::ui
