// TrainingRun: the device's memory meter and budget, the memory-saving techniques in effect,
// the optimizer they call for, and the escalation ladder out-of-memory recovery climbs.
#include "compat/device_memory.h"
#include "distributed/sharded_optimizer.h"
#include "optim/adamw8bit.h"
#include "optim/fused_adamw.h"
#include "optim/offloaded_adamw.h"
#include "optim/optimizer_support.h"
#include "train/lora_setup.h"
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

void TrainingRun::releaseCachesIfDue(std::int64_t step) {
    const std::int64_t every = settings_.clear_every;
    if (every > 0 && step % every == 0) {
        meter_->releaseCaches();
    }
}

} // namespace headroom::train
