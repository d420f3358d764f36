#pragma once

#include "models/gpt.h"

#include <headroom/metrics.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace headroom::train {

// Sums the MoE routing of an optimizer step's micro-batches into its MoeStepMetrics. Each
// micro-batch's losses are means over its sequences, so weighting them by the micro-batch's
// share of the step gives the mean over the step's sequences however the step was cut; the
// counts are plain sums. Reset when the step starts (again, after an out-of-memory error).
class MoeStepStatistics {
public:
    void reset();
    // share: the micro-batch's examples / the step's examples.
    void add(const models::MoeRouting &routing, double share);
    // Nothing when no micro-batch had MoE blocks.
    std::optional<MoeStepMetrics> metrics() const;

private:
    bool seen_ = false;
    double aux_loss_ = 0;
    double z_loss_ = 0;
    std::vector<std::vector<std::int64_t>> expert_counts_; // [MoE block][expert]
    std::int64_t dropped_ = 0;
    std::int64_t assignments_ = 0; // over all MoE blocks
};

} // namespace headroom::train
