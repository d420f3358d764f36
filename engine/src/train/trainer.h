#pragma once

#include <headroom/config.h>
#include <headroom/session.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
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

struct PreparedData;

// The estimator's uncorrected peak for a configuration as it ran, recorded beside the measured
// peak in the memory history (the planner's side; empty records 0 = unknown).
using PeakEstimator =
    std::function<std::uint64_t(const Config &measured, const PreparedData &data)>;

// Runs one training session to its end on the calling thread and reports how it ended.
// Never throws: every failure becomes a RunResult with a FailureKind and a message.
RunResult runTraining(const SessionRequest &request, TrainerControl &control, ObserverHub &hub,
                      const PeakEstimator &estimate_peak);

} // namespace headroom::train
