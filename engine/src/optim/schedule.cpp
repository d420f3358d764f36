#include "optim/schedule.h"

#include <algorithm>
#include <cmath>

namespace headroom::train {

double LearningRateSchedule::at(std::int64_t step) const {
    if (warmup_steps > 0 && step <= warmup_steps) {
        return peak_lr * static_cast<double>(step) / static_cast<double>(warmup_steps);
    }
    const std::int64_t decay_steps = std::max<std::int64_t>(1, total_steps - warmup_steps);
    const double progress = std::clamp(
        static_cast<double>(step - warmup_steps) / static_cast<double>(decay_steps), 0.0, 1.0);
    const double cosine = 0.5 * (1.0 + std::cos(M_PI * progress));
    const double min_lr = peak_lr * min_ratio;
    return min_lr + (peak_lr - min_lr) * cosine;
}

} // namespace headroom::train
