#include "plan/model_facts.h"
#include "train/trainer.h"

#include <headroom/session.h>

#include <thread>

namespace headroom {

std::string toString(SessionState state) {
    switch (state) {
    case SessionState::Idle:
        return "idle";
    case SessionState::Preparing:
        return "preparing";
    case SessionState::Running:
        return "running";
    case SessionState::Paused:
        return "paused";
    case SessionState::Stopping:
        return "stopping";
    case SessionState::Finished:
        return "finished";
    case SessionState::Stopped:
        return "stopped";
    case SessionState::Failed:
        return "failed";
    }
    return "unknown";
}

struct Session::Impl {
    SessionRequest request;
    train::TrainerControl control;
    train::ObserverHub hub;
    std::thread thread;
    RunResult result;
    bool joined = false;
};

Session::Session(SessionRequest request) : impl_(std::make_unique<Impl>()) {
    impl_->request = std::move(request);
}

Session::~Session() {
    if (impl_->thread.joinable()) {
        stop();
        impl_->thread.join();
    }
}

void Session::addObserver(SessionObserver *observer) {
    impl_->hub.add(observer);
}

void Session::start() {
    if (impl_->thread.joinable() || impl_->joined) {
        return;
    }
    impl_->thread = std::thread([impl = impl_.get()] {
        impl->result =
            train::runTraining(impl->request, impl->control, impl->hub, &plan::uncorrectedPeak);
    });
}

void Session::pause() {
    impl_->control.pause.store(true);
}

void Session::resume() {
    {
        std::lock_guard<std::mutex> lock(impl_->control.mutex);
        impl_->control.pause.store(false);
    }
    impl_->control.wake.notify_all();
}

void Session::stop() {
    {
        std::lock_guard<std::mutex> lock(impl_->control.mutex);
        impl_->control.stop.store(true);
    }
    impl_->control.wake.notify_all();
}

void Session::requestStopFromSignal() noexcept {
    impl_->control.stop.store(true);
}

SessionState Session::state() const {
    return impl_->hub.current();
}

RunResult Session::wait() {
    if (impl_->thread.joinable()) {
        impl_->thread.join();
        impl_->joined = true;
    }
    return impl_->result;
}

} // namespace headroom
