#pragma once

#include <headroom/session.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <vector>

namespace headroom::train {

// Flags the Session sets from any thread and the trainer reads between micro-steps.
struct TrainerControl {
    std::atomic<bool> stop{false};
    std::atomic<bool> pause{false};
    std::mutex mutex;
    std::condition_variable wake;
};

// Fans engine callbacks out to every observer; owns the state reporting.
class ObserverHub {
public:
    void add(SessionObserver *observer) { observers_.push_back(observer); }
    void started(const RunInfo &info) const;
    void step(const StepMetrics &metrics) const;
    void eval(const EvalMetrics &metrics) const;
    void event(const EngineEvent &event) const;
    void state(SessionState state, const std::string &message);
    SessionState current() const { return state_.load(); }

private:
    std::vector<SessionObserver *> observers_;
    std::atomic<SessionState> state_{SessionState::Idle};
};

// Runs one training session to its end on the calling thread and reports how it ended.
// Never throws: every failure becomes a RunResult with a FailureKind and a message.
RunResult runTraining(const SessionRequest &request, TrainerControl &control, ObserverHub &hub);

} // namespace headroom::train
