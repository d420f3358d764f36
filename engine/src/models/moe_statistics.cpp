#include "models/moe_statistics.h"

namespace headroom::train {

void MoeStepStatistics::reset() {
    *this = MoeStepStatistics();
}

void MoeStepStatistics::add(const models::MoeRouting &routing, double share) {
    if (routing.expert_counts.empty()) {
        return;
    }
    if (!seen_) {
        expert_counts_.resize(routing.expert_counts.size());
        seen_ = true;
    }
    TORCH_CHECK(expert_counts_.size() == routing.expert_counts.size(),
                "MoE blocks changed within a step");
    aux_loss_ += routing.aux_loss.item<double>() * share;
    z_loss_ += routing.z_loss.item<double>() * share;
    for (std::size_t block = 0; block < routing.expert_counts.size(); ++block) {
        const torch::Tensor counts =
            routing.expert_counts[block].to(torch::kCPU, torch::kLong).contiguous();
        std::vector<std::int64_t> &sums = expert_counts_[block];
        sums.resize(static_cast<std::size_t>(counts.numel()), 0);
        const std::int64_t *data = counts.data_ptr<std::int64_t>();
        for (std::size_t e = 0; e < sums.size(); ++e) {
            sums[e] += data[e];
        }
        dropped_ += routing.dropped[block].item<std::int64_t>();
        assignments_ += routing.assignments;
    }
}

std::optional<MoeStepMetrics> MoeStepStatistics::metrics() const {
    if (!seen_) {
        return std::nullopt;
    }
    MoeStepMetrics metrics;
    metrics.aux_loss = aux_loss_;
    metrics.z_loss = z_loss_;
    metrics.dropped_fraction =
        assignments_ > 0 ? static_cast<double>(dropped_) / static_cast<double>(assignments_) : 0.0;
    for (const std::vector<std::int64_t> &counts : expert_counts_) {
        std::int64_t total = 0;
        for (const std::int64_t count : counts) {
            total += count;
        }
        std::vector<double> load;
        for (const std::int64_t count : counts) {
            load.push_back(total > 0 ? static_cast<double>(count) / static_cast<double>(total)
                                     : 0.0);
        }
        metrics.expert_load.push_back(std::move(load));
    }
    return metrics;
}

} // namespace headroom::train
