#include "profile/recorder.h"
#include "train/training_run.h"

#include <headroom/config.h>

#include <memory>

namespace headroom::train {

namespace {

std::string stepCount(std::int64_t steps) {
    return std::to_string(steps) + (steps == 1 ? " step" : " steps");
}

} // namespace

void TrainingRun::checkProfileRequest() const {
    const ProfileOptions &options = *request_.profile;
    if (options.steps < 1) {
        throw ConfigError("a profile needs at least 1 step (got " + std::to_string(options.steps) +
                          ")");
    }
    if (options.warmup_steps < 0) {
        throw ConfigError("profile warm-up steps must be 0 or more (got " +
                          std::to_string(options.warmup_steps) + ")");
    }
    if (request_.resume) {
        throw ConfigError("a profile trains from the configuration's initial weights: it cannot "
                          "continue a run");
    }
}

void TrainingRun::profileLoop() {
    const ProfileOptions &options = *request_.profile;
    const std::string steps = stepCount(options.steps);
    profile::Recorder recorder(options.max_trace_events);
    if (options.warmup_steps > 0) {
        hub_.state(SessionState::Running,
                   "warming up: " + stepCount(options.warmup_steps) + ", not recorded");
    }
    while (step_ < stop_after_) {
        refreshStreamAnchor();
        if (step_ == options.warmup_steps) {
            hub_.state(SessionState::Running, "profiling " + steps);
            recorder.start();
        }
        if (control_.stop.load() || !waitWhilePaused() || !trainOneStep()) {
            recorder.stop();
            finish(RunStatus::Stopped, "the profile stopped at step " + std::to_string(step_) +
                                           " of " + std::to_string(stop_after_) +
                                           " before it was complete");
            return;
        }
    }
    recorder.stop();
    auto report = std::make_shared<ProfileReport>();
    recorder.fillReport(*report);
    report->device = device_name_;
    report->model = recipe_->describe();
    report->steps = options.steps;
    report->warmup_steps = options.warmup_steps;
    report->micro_batch = shape_.micro_batch;
    report->accumulation = shape_.accumulation();
    report->measured_activation_bytes = breakdown_.measured ? breakdown_.activations : 0;
    result_.profile = std::move(report);
    finish(RunStatus::Finished,
           "profiled " + steps + " after " + stepCount(options.warmup_steps) + " of warm-up");
}

} // namespace headroom::train
