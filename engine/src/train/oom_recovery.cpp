// Out-of-memory recovery of a training run: halve the micro-batch and replay the step's samples,
// then climb the escalation ladder at micro-batch 1, fall back to the CPU where allowed, and
// otherwise pause every rank with a diagnosis. The step that calls these is training_step.cpp.
#include "device/system_memory.h"
#include "memory/cpu_allocator.h"
#include "memory/oom.h"
#include "train/checkpoint.h"
#include "train/training_run.h"

#include <headroom/units.h>

namespace headroom::train {

void TrainingRun::injectOutOfMemoryInBackward(distributed::OverlappedReducer *reducer,
                                              std::int64_t step) {
    if (reducer == nullptr) {
        oom_backward_step_ = step;
        meter_->injectOutOfMemory(1);
        return;
    }
    // After the first bucket went out: the replay must keep its sum and send only the rest.
    reducer->setAfterEarlyLaunch([this, step](std::size_t) {
        if (oom_backward_step_ != step) {
            oom_backward_step_ = step;
            meter_->injectOutOfMemory(1);
        }
    });
}

// A rank that ran out of memory halved its micro-batch and replayed its share; from the next
// step every rank runs that micro-batch too, so the ranks keep one shape (the effective batch,
// and so every step's samples and gradient, never changes).
void TrainingRun::adoptPeerMicroBatch(std::int64_t step,
                                      const std::vector<std::int64_t> &micro_batches) {
    const auto smallest = std::min_element(micro_batches.begin(), micro_batches.end());
    if (smallest == micro_batches.end() || *smallest >= shape_.micro_batch || *smallest < 1) {
        return;
    }
    const auto rank = static_cast<std::int64_t>(smallest - micro_batches.begin());
    const std::int64_t from = shape_.micro_batch;
    shape_.micro_batch = *smallest;
    micro_batch_history_.push_back(shape_.micro_batch);
    ++peer_recoveries_;
    record_.oom_recoveries = backoff_->recoveries() + peer_recoveries_;
    breakdown_due_ = true;
    emit("oom_recovered",
         "out of memory on rank " + std::to_string(rank) + " at step " + std::to_string(step) +
             ": micro-batch " + std::to_string(from) + " -> " + std::to_string(shape_.micro_batch) +
             " on every rank from step " + std::to_string(step + 1) + ", accumulation " +
             std::to_string(shape_.accumulation()) + ", same samples",
         {{"from", from},
          {"to", shape_.micro_batch},
          {"accumulation", shape_.accumulation()},
          {"rank", rank},
          {"device", device_name_}},
         step);
}

void TrainingRun::pauseEveryRank(std::int64_t step, int failed_rank) {
    optimizer_->zeroGrad();
    const std::string diagnosis =
        failed_rank == parallel_->rank()
            ? exhausted_diagnosis_
            : parallel_->readPublished("diagnosis of step " + std::to_string(step), failed_rank);
    const std::string message = "rank " + std::to_string(failed_rank) + ": " + diagnosis;
    if (failed_rank != parallel_->rank()) {
        emit("out_of_memory", message, {{"rank", failed_rank}}, step);
    }
    const std::string step_start_state = rewindToStepStart();
    if (last_checkpoint_step_ != step_) {
        writeCheckpoint(step_start_state);
    }
    throw RunFailure{FailureKind::CannotContinue, message, RunStatus::Paused};
}

void TrainingRun::recoverFromOutOfMemory(std::int64_t step, const std::string &error) {
    const MemorySample memory = sampleMemory();
    const std::string first_line = error.substr(0, error.find('\n'));
    // The failpoint stands in for a GPU that has nothing left to try (tests run on the CPU).
    if (failpoints_.at("fallback", step) && fallBackToCpu(step, first_line)) {
        return;
    }
    const std::optional<BatchShape> smaller = backoff_->next(shape_);
    if (!smaller && backoff_->recoveries() < settings_.max_recoveries &&
        climbLadder(step, first_line)) {
        breakdown_due_ = true;
        return;
    }
    if (!smaller && !on_cpu_ && fallBackToCpu(step, first_line)) {
        return;
    }
    if (!smaller) {
        std::string tried;
        for (const std::int64_t micro_batch : micro_batch_history_) {
            tried += (tried.empty() ? "" : " -> ") + std::to_string(micro_batch);
        }
        const std::uint64_t budget = settings_.memory_budget;
        const std::string diagnosis =
            "out of memory at step " + std::to_string(step) + " with micro-batch " +
            std::to_string(shape_.micro_batch) + " (" + first_line + "); peak seen " +
            formatBytes(std::max(record_.peak_bytes, memory.peak)) + ", budget " +
            (budget != 0 ? formatBytes(budget) : std::string("none")) + "; tried micro-batch " +
            tried + ladderSummary() +
            ". Raise memory.budget, or make the model or model.seq_len smaller, then " +
            kContinueHint;
        emit("out_of_memory", diagnosis,
             {{"micro_batch", shape_.micro_batch},
              {"bytes_at_failure", memory.live},
              {"budget", budget},
              {"device", device_name_}},
             step);
        if (parallel_) {
            // The others are on their way to this step's exchange: meet them there, so that
            // every rank pauses at the step's start together (pauseEveryRank).
            exhausted_diagnosis_ = diagnosis;
            parallel_->publish("diagnosis of step " + std::to_string(step), diagnosis);
            return;
        }
        const std::string step_start_state = rewindToStepStart();
        if (last_checkpoint_step_ != step_) {
            writeCheckpoint(step_start_state);
        }
        throw RunFailure{FailureKind::CannotContinue, diagnosis, RunStatus::Paused};
    }
    emit("oom_recovered",
         "out of memory at step " + std::to_string(step) + ": micro-batch " +
             std::to_string(shape_.micro_batch) + " -> " + std::to_string(smaller->micro_batch) +
             ", accumulation " + std::to_string(smaller->accumulation()) + ", same samples",
         {{"from", shape_.micro_batch},
          {"to", smaller->micro_batch},
          {"accumulation", smaller->accumulation()},
          {"device", device_name_},
          {"bytes_at_failure", memory.live},
          {"error", first_line}},
         step);
    shape_ = *smaller;
    micro_batch_history_.push_back(shape_.micro_batch);
    breakdown_due_ = true;
    record_.oom_recoveries = backoff_->recoveries() + peer_recoveries_;
}

const SpeedCalibration *TrainingRun::ladderSpeedCalibration() {
    if (!speed_calibration_looked_up_) {
        speed_calibration_looked_up_ = true;
        const std::string device =
            device_.is_cuda() ? "cuda:" + std::to_string(device_.has_index() ? device_.index() : 0)
                              : device_.str();
        speed_calibration_ = cachedSpeedCalibration(device);
        const char *setting = std::getenv("HEADROOM_CALIBRATION");
        if (!speed_calibration_ && (setting == nullptr || std::string(setting) != "off")) {
            // Switching a run to a precision that is 10-60x slower is worse than the second
            // this costs; the few MiB it allocates may fail under a tight budget: then the
            // rung is judged without it.
            CalibrationOptions options;
            options.device = device;
            options.time_budget_s = 0.5;
            options.quick = true;
            try {
                speed_calibration_ = calibrateSpeed(options);
            } catch (const std::exception &) {
                speed_calibration_.reset();
            }
        }
    }
    return speed_calibration_ ? &*speed_calibration_ : nullptr;
}

bool TrainingRun::climbLadder(std::int64_t step, const std::string &error) {
    const std::string recipe = plan_.config.text("recipe");
    const bool frozen_base =
        !plan_.config.text("model.base").empty() && plan_.config.integer("lora.rank") > 0;
    std::vector<std::string> slow_precisions; // skipped in this climb for their speed
    while (!ladder_.empty()) {
        const LadderRung rung = ladder_.front();
        ladder_.erase(ladder_.begin());
        std::string skip = rungSkipReason(rung, techniques_, device_, recipe, frozen_base);
        if (skip.empty() && rung == LadderRung::Bf16) {
            skip = rungSkipReason(rung, techniques_, device_, recipe, frozen_base,
                                  ladderSpeedCalibration());
            if (!skip.empty()) {
                slow_precisions.push_back(skip);
            }
        }
        if (!skip.empty()) {
            ladder_tried_.push_back(rungName(rung) + " (skipped: " + skip + ")");
            continue;
        }
        const Techniques before = techniques_;
        const memory::MemoryReading reading = meter_->read();
        techniques_ = withRung(techniques_, rung);
        applyTechniques();
        if (rung == LadderRung::AdamW8bit || rung == LadderRung::Offload) {
            switchOptimizer(rung);
        }
        meter_->releaseCaches();
        ladder_tried_.push_back(rungName(rung));
        std::string slow_note;
        for (const std::string &reason : slow_precisions) {
            slow_note += "; " + reason + ": using " + techniques_.describe() + " instead";
        }
        emit("ladder",
             "out of memory at step " + std::to_string(step) + " with micro-batch " +
                 std::to_string(shape_.micro_batch) + ": switched on " + rungName(rung) + " (" +
                 before.describe() + " -> " + techniques_.describe() + "), same samples" +
                 slow_note,
             {{"rung", rungName(rung)},
              {"skipped_slow_precision", slow_precisions},
              {"from", before.describe()},
              {"to", techniques_.describe()},
              {"micro_batch", shape_.micro_batch},
              {"bytes_at_failure", reading.live},
              {"device", device_name_},
              {"error", error}},
             step);
        return true;
    }
    return false;
}

std::string TrainingRun::ladderSummary() const {
    if (ladder_tried_.empty()) {
        return "";
    }
    std::string text = "; escalation ladder: ";
    for (std::size_t i = 0; i < ladder_tried_.size(); ++i) {
        text += (i == 0 ? "" : ", ") + ladder_tried_[i];
    }
    return text;
}

bool TrainingRun::fallBackToCpu(std::int64_t step, const std::string &error) {
    if (plan_.config.text("device.fallback") != "cpu" || parallel_) {
        return false;
    }
    if (techniques_.base_format == BaseFormat::Int8 || techniques_.base_format == BaseFormat::Nf4) {
        return false; // the quantized base's storage is not a module buffer that to() moves
    }
    const std::string from = device_name_;
    const torch::Device cpu(torch::kCPU);
    // The optimizer state goes to the host parameter by parameter, then the device's copy is
    // freed before the model moves, so both never need room on the host at once.
    std::vector<std::vector<torch::Tensor>> states;
    for (std::size_t index = 0; index < optimizer_->parameters().size(); ++index) {
        std::vector<torch::Tensor> state;
        for (const torch::Tensor &part : optimizer_->parameterState(index)) {
            state.push_back(part.to(cpu, /*non_blocking=*/false, /*copy=*/true));
        }
        states.push_back(std::move(state));
    }
    optimizer_.reset();
    recipe_->moveTo(cpu);
    device_ = cpu;
    device_name_ = cpu.str();
    on_cpu_ = true;
    // LibTorch has no fp16 autocast on the CPU: fp16 runs go on in fp32 (no loss scaling).
    const Techniques before = techniques_;
    if (techniques_.precision == Precision::Fp16) {
        techniques_.precision = Precision::Fp32;
    }
    meter_ = makeBudgetedMeter(plan_.config, device_);
    applyTechniques();
    optimizer_ = makeOptimizer();
    optimizer_->setLearningRate(schedule_.at(step));
    for (std::size_t index = 0; index < states.size(); ++index) {
        optimizer_->setParameterState(index, states[index]);
    }
    breakdown_due_ = true;
    record_.device = device_name_;
    emit("device_fallback",
         "out of memory on " + from + " at step " + std::to_string(step) + " with micro-batch " +
             std::to_string(shape_.micro_batch) + " (" + error +
             "): the run moved to the CPU (device.fallback=cpu) and goes on with the same "
             "samples, slower" +
             (before == techniques_ ? std::string()
                                    : ", in " + techniques_.describe() + " (no fp16 on the CPU)"),
         {{"from", from}, {"to", device_name_}, {"micro_batch", shape_.micro_batch}}, step);
    return true;
}

} // namespace headroom::train
