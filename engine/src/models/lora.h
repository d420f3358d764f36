#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace headroom::models {

// Low-rank adaptation (Hu et al., 2021): a frozen Linear W gains a trainable update
// B A * alpha/rank, with A [rank, in] and B [out, rank].
struct LoraOptions {
    TORCH_ARG(std::int64_t, rank) = 8;
    TORCH_ARG(double, alpha) = 16.0;
    TORCH_ARG(double, dropout) = 0.05;
    // Which projections of a GPT block get adapters (see loraTargetNames()).
    TORCH_ARG(std::set<std::string>, targets) = {"qkv", "attn_out", "mlp_in", "mlp_out"};
};

// The valid target names, in block order: the fused qkv projection, the attention output
// projection, the MLP's first and its output projection, and in Mixture-of-Experts blocks every
// expert's first (experts_in) and output (experts_out) projection. The default targets leave
// the experts alone.
const std::vector<std::string> &loraTargetNames();

// "qkv, mlp_in" -> {"qkv", "mlp_in"}. Throws std::invalid_argument naming an unknown target
// and listing the valid ones, or for an empty list.
std::set<std::string> parseLoraTargets(const std::string &comma_list);
// "attn_out,mlp_in,..." in block order.
std::string formatLoraTargets(const std::set<std::string> &targets);

// Throws std::invalid_argument naming the bad option: rank < 1, alpha <= 0, dropout outside
// [0, 1), no targets or an unknown one.
void validateLoraOptions(const LoraOptions &options);
// The same without the targets (pretrained models name their own projections).
void validateLoraHyperparameters(const LoraOptions &options);

// While one lives, the adapters of every model on this thread add nothing: the models compute
// their frozen base (as PEFT's disable_adapter()), the reference model of preference tuning
// without a second copy of the weights.
class ScopedAdaptersOff {
public:
    ScopedAdaptersOff();
    ~ScopedAdaptersOff();
    ScopedAdaptersOff(const ScopedAdaptersOff &) = delete;
    ScopedAdaptersOff &operator=(const ScopedAdaptersOff &) = delete;

private:
    bool was_off_;
};
// False while a ScopedAdaptersOff lives on this thread.
bool adaptersOn();

// The adapter of one Linear. It keeps the Linear it adapts without registering it, so its own
// parameters are only "a" and "b" and the base keeps its names in the enclosing module.
class LoraAdapterImpl : public torch::nn::Module {
public:
    // dropout_site keys the input dropout's masks (models/keyed_dropout.h).
    LoraAdapterImpl(torch::nn::Linear base, const LoraOptions &options,
                    std::uint64_t dropout_site = 0);

    // base(x) + delta(x)
    torch::Tensor forward(const torch::Tensor &x);
    // dropout(x) A^T B^T * alpha/rank: what the adapter adds to the base's output.
    torch::Tensor delta(const torch::Tensor &x);
    // x A^T B^T * alpha/rank, for a caller that applied the input dropout itself (the experts of
    // an MoE layer key it by the tokens' rows: keyedDropoutRows with dropoutSite()).
    torch::Tensor deltaWithoutDropout(const torch::Tensor &x);
    double dropoutProbability() const { return dropout_; }
    std::uint64_t dropoutSite() const { return dropout_site_; }
    // B A * alpha/rank [out, in], float32, detached.
    torch::Tensor update() const;
    // W + B A * alpha/rank: the weight of a plain Linear that computes what forward does in
    // eval mode. Detached.
    torch::Tensor mergedWeight() const;
    double scaling() const { return scaling_; }

    torch::Tensor a; // [rank, in], kaiming_uniform(a = sqrt(5)) as torch's Linear
    torch::Tensor b; // [out, rank], zeros: the adapted layer starts equal to the base

private:
    torch::nn::Linear base_;
    double scaling_;
    double dropout_;
    std::uint64_t dropout_site_;
};
TORCH_MODULE(LoraAdapter);

// The parameters an optimizer should update (requires_grad), without duplicates.
std::vector<torch::Tensor> trainableParameters(const torch::nn::Module &module);

// Sets requires_grad = false on every parameter of the module and its children.
void freezeParameters(torch::nn::Module &module);

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// Parameters and buffers of a module whose name has a "lora_" component, e.g.
// "blocks.0.lora_qkv.a", detached.
NamedTensors loraAdapterTensors(const torch::nn::Module &module);

} // namespace headroom::models
