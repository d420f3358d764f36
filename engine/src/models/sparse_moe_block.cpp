#include "models/sparse_moe_block.h"

#include "models/expert_dispatch.h"
#include "models/keyed_dropout.h"
#include "models/linear_storage.h"

#include <stdexcept>

namespace headroom::models {

SparseMoeBlockImpl::SparseMoeBlockImpl(std::int64_t dim, std::int64_t hidden, std::int64_t experts,
                                       std::int64_t top_k, double jitter, bool deferred)
    : top_k_(top_k), jitter_(jitter) {
    if (experts < 1 || experts > kMaxSparseExperts || top_k < 1 || top_k > experts) {
        throw std::invalid_argument("a sparse MoE block needs 1 to " +
                                    std::to_string(kMaxSparseExperts) +
                                    " experts and top_k in 1..experts, got " +
                                    std::to_string(experts) + " and " + std::to_string(top_k));
    }
    gate = register_module("gate", uninitialisedLinear(dim, experts, false));
    auto list = register_module("experts", torch::nn::ModuleList());
    for (std::int64_t e = 0; e < experts; ++e) {
        Projections expert;
        // The checkpoint's order: w1, w2, w3.
        expert->addLinear("w1", dim, hidden, false, deferred);
        expert->addLinear("w2", hidden, dim, false, deferred);
        expert->addLinear("w3", dim, hidden, false, deferred);
        list->push_back(expert);
        experts_.push_back(expert);
    }
}

void SparseMoeBlockImpl::enableLora(const LoraOptions &options, std::uint64_t first_site) {
    for (std::size_t e = 0; e < experts_.size(); ++e) {
        experts_[e]->enableLora(options, first_site + 3 * e);
    }
}

SparseMoeOutput SparseMoeBlockImpl::forward(const torch::Tensor &x, std::int64_t rows) {
    const std::int64_t tokens = x.size(0);
    const std::int64_t length = tokens / rows;
    const auto experts = static_cast<std::int64_t>(experts_.size());
    torch::Tensor input = x;
    if (jitter_ > 0 && is_training()) {
        input = x * keyedUniform(x, 1.0 - jitter_, 1.0 + jitter_, jitter_site_).to(x.dtype());
    }
    const torch::Tensor logits = routerLogits(input, gate->weight); // [N, E] fp32
    const torch::Tensor probabilities = torch::softmax(logits, -1); // over all experts
    const auto top = probabilities.topk(top_k_, -1);
    const torch::Tensor selected = std::get<0>(top);
    const torch::Tensor gates = selected / selected.sum(-1, true);

    const ExpertAssignments assignments =
        sortAssignments(std::get<1>(top), rows, length, experts, 0);
    SparseMoeOutput result;
    result.output = runExperts(
        input, assignments, gates,
        [this, tokens](std::int64_t e, const torch::Tensor &slice, const torch::Tensor &where) {
            Projections &expert = experts_[static_cast<std::size_t>(e)];
            const torch::Tensor h = torch::silu(expert->project("w1", slice, where, tokens)) *
                                    expert->project("w3", slice, where, tokens);
            return expert->project("w2", h, where, tokens);
        });
    result.probability_sums = probabilities.view({rows, length, experts}).sum(1);
    result.counts = assignments.group_sizes.t();
    result.selected = std::get<1>(top);
    torch::NoGradGuard no_grad;
    result.z_loss = torch::logsumexp(logits, -1).pow(2).view({rows, length}).mean(1).mean();
    return result;
}

torch::Tensor sparseMoeBalancingLoss(const std::vector<torch::Tensor> &probability_sums,
                                     const std::vector<torch::Tensor> &counts,
                                     std::int64_t length) {
    TORCH_CHECK(!probability_sums.empty() && probability_sums.size() == counts.size(),
                "the balancing loss needs each MoE block's probabilities and counts");
    torch::Tensor probability = probability_sums.front();
    torch::Tensor assigned = counts.front().to(torch::kFloat);
    for (std::size_t block = 1; block < counts.size(); ++block) {
        probability = probability + probability_sums[block];
        assigned = assigned + counts[block].to(torch::kFloat);
    }
    const double per_row = static_cast<double>(counts.size()) * static_cast<double>(length);
    const auto experts = static_cast<double>(probability.size(1));
    return ((assigned / per_row) * (probability / per_row)).sum(1).mean() * experts;
}

} // namespace headroom::models
