// Mixture-of-Experts feed-forward layer: a router sends each token to its top-k experts (small
// MLPs), each expert runs once on the contiguous slice of tokens routed to it, and the weighted
// outputs are added back per token (Switch Transformer / GShard, with ST-MoE's router z-loss).
#pragma once

#include "models/lora.h"
#include "models/moe_routing.h"

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace headroom::models {

struct MoeOptions {
    TORCH_ARG(std::int64_t, experts) = 0; // 0: the GPT's blocks are dense
    TORCH_ARG(std::int64_t, top_k) = 2;
    // Capacity per expert and sequence: ceil(capacity_factor * T * top_k / experts) tokens;
    // 0 = unlimited (nothing is dropped).
    TORCH_ARG(double, capacity_factor) = 1.25;
    // Every `every`-th block is an MoE block: those with index % every == every - 1.
    TORCH_ARG(std::int64_t, every) = 1;
    TORCH_ARG(std::int64_t, expert_hidden) = 0; // 0 = 4 * dim
    TORCH_ARG(double, aux_loss) = 0.01;         // weight of the load-balancing loss
    TORCH_ARG(double, z_loss) = 0.001;          // weight of the router z-loss
    TORCH_ARG(double, jitter) = 0.0;            // router input noise in training: x * U(1-e, 1+e)
};

// Throws std::invalid_argument naming the option ("moe.top_k ...") when experts > 0 and a value
// is out of range: top_k outside 1..experts, capacity_factor < 0 or not finite, every < 1,
// expert_hidden < 0, aux_loss or z_loss < 0, jitter outside [0, 1); and for experts < 0.
void validateMoeOptions(const MoeOptions &options);

// The hidden width of each expert (expert_hidden, or 4 * dim when that is 0).
std::int64_t expertHidden(const MoeOptions &options, std::int64_t dim);

// Tokens one expert may take from one sequence of `length` tokens; 0 = unlimited.
std::int64_t expertCapacity(const MoeOptions &options, std::int64_t length);

// One forward pass of an MoE layer.
struct MoeOutput {
    torch::Tensor output;        // [B, T, dim], in the experts' compute dtype
    torch::Tensor aux_loss;      // fp32 scalar, attached: the load-balancing loss (1 = balanced)
    torch::Tensor z_loss;        // fp32 scalar, attached
    torch::Tensor expert_counts; // int64 [experts] on the CPU: assignments before dropping
    torch::Tensor dropped;       // int64 scalar on the CPU: assignments over capacity
};

// One expert: dim -> hidden -> dim with GELU, optionally with LoRA adapters.
class ExpertMlpImpl : public torch::nn::Module {
public:
    ExpertMlpImpl(std::int64_t dim, std::int64_t hidden);
    // x [M, dim]: the tokens routed here, which are the rows `positions` of the layer's
    // [tokens, dim] input (the adapters' dropout masks are keyed by those rows).
    torch::Tensor forward(const torch::Tensor &x, const torch::Tensor &positions,
                          std::int64_t tokens);
    void enableLora(const LoraOptions &options, std::uint64_t first_site);
    // Merged weights of the adapted Linears ("fc.weight", "fc_out.weight").
    std::map<std::string, torch::Tensor> mergedLinearWeights() const;

    torch::nn::Linear fc{nullptr};
    torch::nn::Linear fc_out{nullptr};

private:
    torch::Tensor project(torch::nn::Linear &linear, LoraAdapter &adapter, const torch::Tensor &x,
                          const torch::Tensor &positions, std::int64_t tokens);

    LoraAdapter lora_in_{nullptr};
    LoraAdapter lora_out_{nullptr};
    std::uint64_t lora_site_ = 0;
};
TORCH_MODULE(ExpertMlp);

// The layer. Routing, for x [B, T, dim] (N = B*T tokens, E experts, top-k):
//  * router logits = x W_r^T (no bias), in fp32 with autocast off; in training with jitter
//    eps the router's input is x times noise from U(1-eps, 1+eps) (keyed per example, see
//    models/keyed_dropout.h); the experts see x itself.
//  * probabilities p = softmax(logits) over all experts; each token picks its top-k experts.
//  * gate weights: k = 1 the top probability itself (Switch: the router gets a gradient through
//    it); k >= 2 the top-k probabilities divided by their sum, which equals a softmax over the
//    selected logits (Mixtral). Renormalised before capacity drops anything.
//  * capacity: groups are single sequences. Within a row, an expert takes at most
//    expertCapacity() assignments, all first choices in token order first, then the second
//    choices, and so on (GShard). The rest are dropped: that expert adds nothing to that token
//    (the block's residual carries it) and the drop is counted. Because decisions depend only
//    on the row, a micro-batch cut in two gives exactly the same routing. (As with any
//    capacity over a causal sequence, a later token's first choice can displace an earlier
//    token's second choice.)
//  * dispatch: the N*k assignments are sorted by (expert, row, slot, token), kept ones are
//    gathered into one [kept, dim] tensor, each expert runs on its slice, and the outputs times
//    their gates are index-added into [N, dim]. No N x E x dim buffer exists.
//  * losses, per row and then averaged over rows: aux = E * sum_e f_e * P_e with f_e the
//    row's share of assignments to e (before drops) and P_e the row's mean probability of e;
//    z = mean over the row's tokens of logsumexp(logits)^2.
class MoeLayerImpl : public torch::nn::Module {
public:
    MoeLayerImpl(std::int64_t dim, const MoeOptions &options);
    MoeOutput forward(const torch::Tensor &x);
    // normal(0, std) for the router and the experts' first Linears, residual_std for their
    // output Linears, zero biases.
    void resetParameters(double std, double residual_std);
    // The experts' adapters: targets "experts_in" (fc) and "experts_out" (fc_out). The router
    // stays frozen. Dropout sites from first_site on, two per expert.
    void enableLora(const LoraOptions &options, std::uint64_t first_site);
    // Merged weights under names relative to the layer ("experts.3.fc.weight").
    std::map<std::string, torch::Tensor> mergedLinearWeights() const;
    // The jitter noise's site (models/keyed_dropout.h).
    void setJitterSite(std::uint64_t site) { jitter_site_ = site; }
    const MoeOptions &options() const { return options_; }

    torch::nn::Linear router{nullptr}; // dim -> experts, no bias
    torch::nn::ModuleList experts{nullptr};

private:
    torch::Tensor routerLogits(const torch::Tensor &flat);

    MoeOptions options_;
    std::vector<ExpertMlp> typed_experts_;
    std::uint64_t jitter_site_ = 0;
};
TORCH_MODULE(MoeLayer);

} // namespace headroom::models
