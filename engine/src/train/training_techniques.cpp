// TrainingRun: the device's memory meter and budget, the memory-saving techniques in effect,
// the optimizer they call for, and the escalation ladder out-of-memory recovery climbs.
#include "compat/device_memory.h"
#include "distributed/sharded_optimizer.h"
#include "train/adamw8bit.h"
#include "train/fused_adamw.h"
#include "train/lora_setup.h"
#include "train/offloaded_adamw.h"
#include "train/optimizer_support.h"
#include "train/training_run.h"

#include <headroom/units.h>

namespace headroom::train {

std::unique_ptr<memory::MemoryMeter> makeBudgetedMeter(const Config &config,
                                                       const torch::Device &device) {
    // Allocator settings are read when the CUDA allocator starts: before any CUDA tensor.
    if (const std::string settings = allocatorSettings(config, device); !settings.empty()) {
        if (const std::string reason = compat::applyCudaAllocatorSettings(settings);
            !reason.empty()) {
            throw ConfigError("memory allocator settings: " + reason);
        }
    }
    std::unique_ptr<memory::MemoryMeter> meter = memory::makeMemoryMeter(device);
    meter->applyBudget(config.bytes("memory.budget"));
    return meter;
}

Techniques checkedTechniques(const Config &config, const torch::Device &device) {
    Techniques techniques = techniquesFromConfig(config);
    checkTechniques(techniques, device, config.text("recipe"));
    return techniques;
}

void applyCheckpointing(Recipe &recipe, const Techniques &techniques, const Config &config) {
    if (!recipe.setActivationCheckpointing(techniques.checkpoint_every)) {
        throw ConfigError("checkpointing is not available for recipe=" + config.text("recipe") +
                          " (use checkpointing=0)");
    }
}

compat::AutocastState autocastFor(const Techniques &techniques, const torch::Device &device) {
    compat::AutocastState state = compat::currentAutocastState();
    if (techniques.precision == Precision::Fp32) {
        return state;
    }
    if (device.is_cuda()) {
        state.cuda_enabled = true;
        state.cuda_dtype = autocastDtype(techniques.precision);
    } else {
        state.cpu_enabled = true;
        state.cpu_dtype = autocastDtype(techniques.precision);
    }
    return state;
}

AdamWOptions adamwOptionsFromConfig(const Config &config) {
    return AdamWOptions()
        .lr(config.real("train.lr"))
        .weight_decay(config.real("train.weight_decay"));
}

std::string optimizerKind(const Techniques &techniques) {
    return techniques.adamw8bit ? "adamw8bit"
           : techniques.offload ? "offloaded_adamw"
                                : "fused_adamw";
}

std::unique_ptr<Optimizer> makeOptimizerOver(const std::vector<torch::Tensor> &parameters,
                                             const Techniques &techniques,
                                             const AdamWOptions &options) {
    if (techniques.adamw8bit) {
        return std::make_unique<AdamW8bit>(parameters, options);
    }
    if (techniques.offload) {
        return std::make_unique<OffloadedAdamW>(parameters, options);
    }
    return std::make_unique<FusedAdamW>(parameters, options);
}

std::unique_ptr<Optimizer> makeOptimizer(Recipe &recipe, const Techniques &techniques,
                                         const AdamWOptions &options) {
    return makeOptimizerOver(trainableParameters(recipe), techniques, options);
}

void TrainingRun::setUpMemory(const Config &config) {
    meter_ = makeBudgetedMeter(config, device_);
    techniques_ = checkedTechniques(config, device_);
    ladder_ = parseLadder(config.text("recovery.ladder"));
}

void TrainingRun::applyTechniques() {
    applyCheckpointing(*recipe_, techniques_, plan_.config);
    if (!recipe_->setBaseFormat(techniques_.base_format)) {
        throw ConfigError("model.base_dtype=" + baseFormatName(techniques_.base_format) +
                          " needs a pretrained base (model.base)");
    }
    const bool scaling = techniques_.precision == Precision::Fp16;
    if (!scaler_ || scaler_->enabled() != scaling) {
        scaler_ = std::make_unique<DynamicLossScaler>(LossScalerOptions().enabled(scaling));
    }
}

compat::AutocastState TrainingRun::autocastState() const {
    return autocastFor(techniques_, device_);
}

std::unique_ptr<Optimizer> TrainingRun::makeOptimizer() {
    if (!parallel_ || plan_.config.integer("distributed.shard_optimizer") == 0) {
        return train::makeOptimizer(*recipe_, techniques_, optimizer_options_);
    }
    const Techniques techniques = techniques_;
    const AdamWOptions options = optimizer_options_;
    return std::make_unique<distributed::ShardedOptimizer>(
        uniqueParameters(trainableParameters(*recipe_), "AdamW"), *parallel_,
        optimizerKind(techniques), [techniques, options](const std::vector<torch::Tensor> &owned) {
            return makeOptimizerOver(owned, techniques, options);
        });
}

namespace {

// The ladder only replaces the fp32 optimizer (a rung that changes nothing is skipped),
// carrying its moments and step counts over, so the run continues where it was.
std::unique_ptr<Optimizer> convertFusedAdamW(Optimizer &optimizer, LadderRung rung) {
    auto *fused = dynamic_cast<FusedAdamW *>(&optimizer);
    if (fused == nullptr) {
        throw std::logic_error("the ladder can only convert the fp32 AdamW state");
    }
    if (rung == LadderRung::AdamW8bit) {
        return AdamW8bit::fromFusedAdamW(*fused);
    }
    return OffloadedAdamW::fromFusedAdamW(*fused);
}

} // namespace

void TrainingRun::switchOptimizer(LadderRung rung) {
    if (auto *sharded = dynamic_cast<distributed::ShardedOptimizer *>(optimizer_.get())) {
        // Each rank converts its own range; the others' ranges follow their own ladders.
        sharded->convertInner(optimizerKind(techniques_),
                              [rung](Optimizer &inner) { return convertFusedAdamW(inner, rung); });
        return;
    }
    optimizer_ = convertFusedAdamW(*optimizer_, rung); // the fp32 moments are freed here
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

void TrainingRun::releaseCachesIfDue(std::int64_t step) {
    const std::int64_t every = plan_.config.integer("memory.clear_every");
    if (every > 0 && step % every == 0) {
        meter_->releaseCaches();
    }
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
