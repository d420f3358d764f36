#pragma once

#include <cstdint>

namespace headroom::train {

// Linear warm-up to peak_lr over warmup_steps, then cosine decay to peak_lr * min_ratio at
// total_steps. Steps are 1-based optimizer steps; the schedule depends only on the step, so a
// resumed or OOM-recovered run follows the same curve.
struct LearningRateSchedule {
    double peak_lr = 3e-4;
    double min_ratio = 0.1;
    std::int64_t warmup_steps = 0;
    std::int64_t total_steps = 1;

    double at(std::int64_t step) const;
};

} // namespace headroom::train
