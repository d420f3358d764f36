#include "models/expert_dispatch.h"

#include "compat/autocast.h"

#include <optional>

namespace headroom::models {

torch::Tensor routerLogits(const torch::Tensor &x, const torch::Tensor &weight) {
    std::optional<compat::ScopedAutocastState> full_precision;
    if (compat::activeAutocastDtype(x.device().type())) {
        compat::AutocastState off = compat::currentAutocastState();
        off.cpu_enabled = false;
        off.cuda_enabled = false;
        full_precision.emplace(off);
    }
    return torch::linear(x.to(torch::kFloat), weight.to(torch::kFloat));
}

ExpertAssignments sortAssignments(const torch::Tensor &top_experts, std::int64_t rows,
                                  std::int64_t length, std::int64_t experts,
                                  std::int64_t capacity) {
    const std::int64_t tokens = rows * length;
    const std::int64_t k = top_experts.size(1);
    // Assignment a = n * k + slot of token n = row * T + t. Its sort key orders by expert,
    // then row, then slot, then token: each (expert, row) group is contiguous and in GShard's
    // priority order, and each expert's groups are contiguous.
    const torch::TensorOptions index_options =
        torch::TensorOptions(torch::kLong).device(top_experts.device());
    const torch::Tensor expert = top_experts.reshape({-1});
    const torch::Tensor assignment = torch::arange(tokens * k, index_options);
    const torch::Tensor token = assignment.div(k, "floor");
    const torch::Tensor slot = assignment.remainder(k);
    const torch::Tensor row = token.div(length, "floor");
    const torch::Tensor position = token.remainder(length);
    const torch::Tensor group = expert * rows + row;
    const torch::Tensor order = ((group * k + slot) * length + position).argsort();
    const torch::Tensor group_sizes = torch::bincount(group, {}, experts * rows);

    ExpertAssignments result;
    result.kept = order;
    if (capacity > 0) {
        const torch::Tensor group_start = group_sizes.cumsum(0) - group_sizes;
        const torch::Tensor rank =
            assignment - group_start.index_select(0, group.index_select(0, order));
        result.kept = order.masked_select(rank < capacity);
    }
    result.group_sizes = group_sizes.view({experts, rows});
    const torch::Tensor sizes = result.group_sizes.to(torch::kCPU);
    result.expert_counts = sizes.sum(1);
    result.kept_counts = capacity > 0 ? sizes.clamp_max(capacity).sum(1) : result.expert_counts;
    return result;
}

torch::Tensor runExperts(const torch::Tensor &flat, const ExpertAssignments &assignments,
                         const torch::Tensor &gates, const ExpertFunction &expert) {
    const std::int64_t tokens = flat.size(0);
    const std::int64_t k = gates.size(1);
    const torch::Tensor kept_token = assignments.kept.div(k, "floor");
    const torch::Tensor kept_gate = gates.reshape({-1}).index_select(0, assignments.kept);
    const torch::Tensor inputs = flat.index_select(0, kept_token); // [kept, dim], by expert
    const torch::Tensor counts = assignments.kept_counts.contiguous();
    const auto *kept_per_expert = counts.data_ptr<std::int64_t>();
    torch::Tensor output;
    std::int64_t offset = 0;
    for (std::int64_t e = 0; e < counts.numel(); ++e) {
        const std::int64_t count = kept_per_expert[e];
        if (count == 0) {
            continue;
        }
        const torch::Tensor where = kept_token.narrow(0, offset, count);
        torch::Tensor y = expert(e, inputs.narrow(0, offset, count), where);
        y = y * kept_gate.narrow(0, offset, count).to(y.scalar_type()).unsqueeze(1);
        if (!output.defined()) {
            output = torch::zeros({tokens, y.size(1)}, y.options());
        }
        output.index_add_(0, where, y);
        offset += count;
    }
    if (!output.defined()) {
        output = torch::zeros_like(flat);
    }
    return output;
}

} // namespace headroom::models
