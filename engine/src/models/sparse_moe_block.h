// Mixtral's sparse Mixture-of-Experts block (transformers' MixtralSparseMoeBlock), the MLP of
// every layer of an imported MixtralForCausalLM. Modules under the checkpoint's names: "gate"
// (the router, dim -> experts, no bias) and "experts.N" holding the SwiGLU projections w1, w3
// (dim -> hidden) and w2 (hidden -> dim), which LoRA can adapt and a compact base holds in its
// format like any other projection; the router stays fp32.
//
// Routing, as transformers' modeling_mixtral.py defines it, for x [N, dim]:
//  * in training with router_jitter_noise j > 0, x is multiplied by noise from U(1-j, 1+j); the
//    router and the experts both see the noisy x (keyed per example: models/keyed_dropout.h);
//  * logits = x W_gate^T, here always in fp32 with autocast off (transformers runs the gate in
//    the model's dtype; in fp32 the two are the same);
//  * p = softmax(logits) over all experts, in fp32; each token takes the top_k experts by p
//    (torch.topk);
//  * gates = those top_k probabilities divided by their sum — always, top_k = 1 included — which
//    equals a softmax over the selected logits alone;
//  * output = sum over the selected experts e of gate_e * w2(silu(w1 x) * w3 x). There is no
//    capacity: no token is ever dropped.
// Dispatch (sorted slices, one pass per expert, index-add back) is models/expert_dispatch.h's.
#pragma once

#include "models/lora.h"
#include "models/projections.h"

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace headroom::models {

struct SparseMoeOutput {
    torch::Tensor output; // [N, dim], in the experts' compute dtype
    // fp32 [rows, experts], attached: per row of the batch, the sum over its tokens of p.
    torch::Tensor probability_sums;
    torch::Tensor counts;   // int64 [rows, experts]: each row's assignments per expert
    torch::Tensor selected; // int64 [N, top_k]: each token's experts, by falling probability
    torch::Tensor z_loss;   // fp32 scalar, detached: mean over rows of mean logsumexp(logits)^2
};

class SparseMoeBlockImpl : public torch::nn::Module {
public:
    // deferred: the experts' weights start empty (CausalLmOptions::deferred_projections).
    SparseMoeBlockImpl(std::int64_t dim, std::int64_t hidden, std::int64_t experts,
                       std::int64_t top_k, double jitter, bool deferred);
    // x [rows * length, dim], the rows outermost.
    SparseMoeOutput forward(const torch::Tensor &x, std::int64_t rows);

    const std::vector<Projections> &experts() const { return experts_; }
    // Adapters on the experts' projections named in options.targets (w1, w2, w3); dropout
    // sites from first_site on, three per expert. The router is never adapted.
    void enableLora(const LoraOptions &options, std::uint64_t first_site);
    // The jitter noise's site (models/keyed_dropout.h).
    void setJitterSite(std::uint64_t site) { jitter_site_ = site; }
    std::int64_t topK() const { return top_k_; }

    torch::nn::Linear gate{nullptr};

private:
    std::vector<Projections> experts_;
    std::int64_t top_k_;
    double jitter_;
    std::uint64_t jitter_site_ = 0;
};
TORCH_MODULE(SparseMoeBlock);

// Three dropout sites per expert from a layer's first expert site: kept below the next layer's.
constexpr std::int64_t kMaxSparseExperts = 256;

// transformers' load_balancing_loss_func over one forward pass's MoE blocks: with C_e the
// assignments to expert e over all blocks and tokens, P_e the sum of its probabilities there,
// and M = blocks x tokens, loss = experts * sum_e (C_e / M) * (P_e / M); balanced routing gives
// top_k. Here each row (sequence) is one such pass and the result is the mean over rows, so a
// step cut into smaller micro-batches has the same loss (for one row it is transformers' value).
// probability_sums and counts: per block, [rows, experts] (SparseMoeOutput); length: tokens per
// row. fp32 scalar, attached through the probability sums.
torch::Tensor sparseMoeBalancingLoss(const std::vector<torch::Tensor> &probability_sums,
                                     const std::vector<torch::Tensor> &counts, std::int64_t length);

} // namespace headroom::models
