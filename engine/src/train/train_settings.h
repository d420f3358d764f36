#pragma once

#include <cstdint>

namespace headroom {
class Config;
}

namespace headroom::train {

// The settings a training run reads as it trains, parsed once from its configuration. Their
// names, defaults, limits and help live in the key registry (config/config_keys.cpp); this is
// only a typed view of the values, so the loop does not look keys up by string at every step.
struct TrainSettings {
    std::int64_t micro_batch = 0;
    std::int64_t accumulation = 0;
    double lr = 0;
    double min_lr_ratio = 0;
    std::int64_t warmup_steps = 0;
    double weight_decay = 0;
    double grad_clip = 0;
    std::int64_t seed = 0;
    std::int64_t threads = 0;
    std::int64_t eval_every = 0;
    std::int64_t eval_batches = 0;
    std::int64_t checkpoint_every = 0;
    std::int64_t keep_checkpoints = 0;
    std::int64_t early_stopping = 0; // validation passes without improvement; 0 = off
    std::int64_t sample_tokens = 0;
    std::int64_t min_micro_batch = 0; // recovery.min_micro_batch
    std::int64_t max_recoveries = 0;  // recovery.max_recoveries
    std::uint64_t memory_budget = 0;  // memory.budget; 0 = none
    std::int64_t clear_every = 0;     // memory.clear_every

    static TrainSettings fromConfig(const Config &config);
};

} // namespace headroom::train
