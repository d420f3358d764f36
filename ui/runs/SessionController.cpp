#include "runs/SessionController.h"

#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace headroom::ui {

// Filled on the engine thread, emptied on the UI thread.
struct SessionController::Inbox {
    std::mutex mutex;
    std::optional<RunInfo> started;
    QVector<StepMetrics> steps;
    QVector<EvalMetrics> evals;
    std::vector<EngineEvent> events;
    std::vector<std::pair<SessionState, std::string>> states;
    bool wake_posted = false;
};

class SessionController::Observer final : public SessionObserver {
public:
    Observer(SessionController *controller, std::shared_ptr<Inbox> inbox)
        : controller_(controller), inbox_(std::move(inbox)) {}

    void onRunStarted(const RunInfo &info) override {
        deliver([&](Inbox &inbox) { inbox.started = info; });
    }
    void onStep(const StepMetrics &metrics) override {
        deliver([&](Inbox &inbox) { inbox.steps.push_back(metrics); });
    }
    void onEval(const EvalMetrics &metrics) override {
        deliver([&](Inbox &inbox) { inbox.evals.push_back(metrics); });
    }
    void onEvent(const EngineEvent &event) override {
        deliver([&](Inbox &inbox) { inbox.events.push_back(event); });
    }
    void onStateChanged(SessionState state, const std::string &message) override {
        deliver([&](Inbox &inbox) { inbox.states.emplace_back(state, message); });
    }

private:
    template <typename Fill> void deliver(Fill fill) {
        bool post = false;
        {
            std::lock_guard<std::mutex> lock(inbox_->mutex);
            fill(*inbox_);
            post = !inbox_->wake_posted;
            inbox_->wake_posted = true;
        }
        if (post) {
            SessionController *controller = controller_;
            QMetaObject::invokeMethod(
                controller, [controller] { controller->wake(); }, Qt::QueuedConnection);
        }
    }

    SessionController *controller_;
    std::shared_ptr<Inbox> inbox_;
};

SessionController::SessionController(QObject *parent) : QObject(parent) {
    qRegisterMetaType<headroom::RunInfo>();
    qRegisterMetaType<headroom::StepMetrics>();
    qRegisterMetaType<headroom::EvalMetrics>();
    qRegisterMetaType<headroom::EngineEvent>();
    qRegisterMetaType<headroom::SessionState>();
    qRegisterMetaType<headroom::RunResult>();
    qRegisterMetaType<QVector<headroom::StepMetrics>>();
    qRegisterMetaType<QVector<headroom::EvalMetrics>>();
    drain_timer_.setSingleShot(true);
    connect(&drain_timer_, &QTimer::timeout, this, &SessionController::drain);
    since_drain_.start();
}

SessionController::~SessionController() {
    if (session_) {
        session_->stop();
    }
    if (reaper_.joinable()) {
        reaper_.join();
    }
    session_.reset();
}

bool SessionController::start(const SessionRequest &request) {
    if (session_) {
        return false;
    }
    if (reaper_.joinable()) {
        reaper_.join();
    }
    inbox_ = std::make_shared<Inbox>();
    observer_ = std::make_unique<Observer>(this, inbox_);
    session_ = std::make_unique<Session>(request);
    session_->addObserver(observer_.get());
    stop_requested_ = false;
    run_info_ = RunInfo{};
    state_ = SessionState::Preparing;
    Q_EMIT stateChanged(state_, tr("Starting…"));
    session_->start();
    Session *session = session_.get();
    reaper_ = std::thread([this, session] {
        const RunResult result = session->wait();
        QMetaObject::invokeMethod(
            this, [this, result] { onSessionReturned(result); }, Qt::QueuedConnection);
    });
    return true;
}

void SessionController::pause() {
    if (session_) {
        session_->pause();
    }
}

void SessionController::resume() {
    if (session_) {
        session_->resume();
    }
}

void SessionController::stop() {
    if (session_) {
        stop_requested_ = true;
        session_->stop();
    }
}

void SessionController::wake() {
    const qint64 elapsed = since_drain_.elapsed();
    if (elapsed >= kMinDrainIntervalMs) {
        drain();
    } else if (!drain_timer_.isActive()) {
        drain_timer_.start(static_cast<int>(kMinDrainIntervalMs - elapsed));
    }
}

void SessionController::drain() {
    drain_timer_.stop();
    since_drain_.restart();
    if (!inbox_) {
        return;
    }
    std::optional<RunInfo> started;
    QVector<StepMetrics> steps;
    QVector<EvalMetrics> evals;
    std::vector<EngineEvent> events;
    std::vector<std::pair<SessionState, std::string>> states;
    {
        std::lock_guard<std::mutex> lock(inbox_->mutex);
        started.swap(inbox_->started);
        steps.swap(inbox_->steps);
        evals.swap(inbox_->evals);
        events.swap(inbox_->events);
        states.swap(inbox_->states);
        inbox_->wake_posted = false;
    }
    if (started) {
        run_info_ = *started;
        Q_EMIT runStarted(run_info_);
    }
    if (!steps.isEmpty()) {
        Q_EMIT stepsArrived(steps);
    }
    if (!evals.isEmpty()) {
        Q_EMIT evalsArrived(evals);
    }
    for (const EngineEvent &event : events) {
        Q_EMIT eventArrived(event);
    }
    for (const auto &[state, message] : states) {
        state_ = state;
        Q_EMIT stateChanged(state, QString::fromStdString(message));
    }
}

void SessionController::onSessionReturned(const RunResult &result) {
    drain(); // whatever the engine reported last comes before finished()
    if (reaper_.joinable()) {
        reaper_.join(); // it has posted this call and returned
    }
    session_.reset();
    observer_.reset();
    inbox_.reset();
    state_ = result.state;
    Q_EMIT finished(result);
}

} // namespace headroom::ui
