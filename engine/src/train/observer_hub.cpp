#include "train/trainer.h"

namespace headroom::train {

void ObserverHub::started(const RunInfo &info) const {
    for (SessionObserver *observer : observers_) {
        observer->onRunStarted(info);
    }
}

void ObserverHub::step(const StepMetrics &metrics) const {
    for (SessionObserver *observer : observers_) {
        observer->onStep(metrics);
    }
}

void ObserverHub::eval(const EvalMetrics &metrics) const {
    for (SessionObserver *observer : observers_) {
        observer->onEval(metrics);
    }
}

void ObserverHub::event(const EngineEvent &event) const {
    for (SessionObserver *observer : observers_) {
        observer->onEvent(event);
    }
}

void ObserverHub::state(SessionState state, const std::string &message) {
    state_.store(state);
    for (SessionObserver *observer : observers_) {
        observer->onStateChanged(state, message);
    }
}

} // namespace headroom::train
