#pragma once

#include "compat/attention_path.h"
#include "models/document_layout.h"
#include "models/lora.h"
#include "models/moe.h"

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace headroom::models {

struct GptOptions {
    GptOptions(std::int64_t vocab_size, std::int64_t seq_len)
        : vocab_size_(vocab_size), seq_len_(seq_len) {}
    TORCH_ARG(std::int64_t, vocab_size);
    TORCH_ARG(std::int64_t, seq_len);
    TORCH_ARG(std::int64_t, layers) = 4;
    TORCH_ARG(std::int64_t, heads) = 4;
    TORCH_ARG(std::int64_t, dim) = 128;
    TORCH_ARG(double, dropout) = 0.1;
    // model.attention: the form of attention (compat/attention_path.h chooses per shape).
    TORCH_ARG(compat::AttentionPath, attention) = compat::AttentionPath::Auto;
    // memory.budget in bytes (0 = none): under a budget auto keeps the explicit path only
    // while every layer's attention weights take at most a quarter of it.
    TORCH_ARG(std::uint64_t, memory_budget) = 0;
    // Mixture-of-Experts blocks (models/moe.h); experts = 0 keeps every block dense.
    TORCH_ARG(MoeOptions, moe);
};

// Throws std::invalid_argument naming the bad option (sizes < 1, dim not divisible by heads,
// dropout outside [0, 1), a bad moe.* value, moe.every beyond the layers).
void validateGptOptions(const GptOptions &options);

// Whether block `index` (0-based) is an MoE block: with moe.experts > 0, the blocks with
// index % every == every - 1 (every = 2: blocks 1, 3, 5, ...; the first block stays dense, as
// in Switch Transformer and GShard, which alternate starting with a dense block).
bool isMoeBlock(const GptOptions &options, std::int64_t index);

// Sizes layers/heads/dim so the parameter count comes close to target_params. Rule: GPT-2's
// family keeps layers ~ dim/64 with head size 64, so solving
//   12*(d/64)*d^2 + (vocab + seq_len)*d = target
// gives a width d0. The multiples of 64 and of 32 on either side of d0 are candidates; each
// gets the layer count (at least 1) that best hits the target, and heads = dim/64 (dim/32
// when 64 does not divide dim). Among candidates within 10 % of the target, a multiple of 64
// wins, then layers closest to dim/64, then the smaller error; when none is within 10 %, the
// smallest error wins.
GptOptions gptOptionsForParameterCount(std::int64_t target_params, std::int64_t vocab_size,
                                       std::int64_t seq_len);

// Parameters of a GPT with these options (weight tying counted once):
// (vocab + seq_len)*d + layers*(12*d^2 + 13*d) + 2*d for a dense model; an MoE block has
// 4*d^2 + 8*d (attention and norms) + E*d (router) + E*(2*d*h + h + d) (experts of hidden h)
// instead of 12*d^2 + 13*d.
std::int64_t gptParameterCount(const GptOptions &options);

struct GptLoss {
    torch::Tensor loss;            // mean next-token cross-entropy
    std::optional<MoeRouting> moe; // with MoE blocks
};

// One pre-LayerNorm transformer block: x + attn(ln1(x)), then x + mlp(ln2(x)). In an MoE block
// the MLP is a MoeLayer (module "moe" instead of "fc"/"fc_out").
class GptBlockImpl : public torch::nn::Module {
public:
    explicit GptBlockImpl(const GptOptions &options, bool moe = false);
    // x [B, T, dim] -> [B, T, dim]; mask: a packed batch's document mask
    // (DocumentLayout::mask), else undefined (causal).
    torch::Tensor forward(const torch::Tensor &x, const torch::Tensor &mask = {});
    // {output} for a dense block; {output, aux_loss, z_loss, expert_counts, dropped} (see
    // MoeOutput) for an MoE block.
    std::vector<torch::Tensor> forwardRouted(const torch::Tensor &x,
                                             const torch::Tensor &mask = {});
    bool isMoe() const { return !moe_.is_empty(); }
    // GPT-2 initialization of this block (see GptImpl::resetParameters).
    void resetParameters(std::int64_t total_layers);

    // Freezes every parameter of the block and registers an adapter "lora_<target>" for each
    // target (e.g. "lora_qkv" with parameters "a" and "b"); forward then uses them. Throws
    // std::invalid_argument for bad options or when LoRA is already enabled.
    void enableLora(const LoraOptions &options);
    bool loraEnabled() const { return lora_enabled_; }
    // Merged weights (W + B A * alpha/rank) of the adapted Linears under their base names
    // relative to the block ("qkv.weight", "proj.weight", "fc.weight", "fc_out.weight",
    // "moe.experts.N.fc.weight", ...).
    std::map<std::string, torch::Tensor> mergedLinearWeights() const;
    // The block's position in the model, which keys its dropout masks (models/keyed_dropout.h).
    // An MoE block's router jitter is keyed from the same site.
    void setDropoutSite(std::uint64_t site);

private:
    // A projection LoRA can adapt: its target name, its weight's name in the block, the Linear.
    struct LoraSite {
        const char *target;
        const char *weight_name;
        torch::nn::Linear linear;
    };
    std::vector<LoraSite> loraSites() const;
    torch::Tensor attention(const torch::Tensor &x, std::int64_t batch, std::int64_t length,
                            const torch::Tensor &mask);
    // Residual dropout; `which` tells the block's dropouts apart.
    torch::Tensor dropout(const torch::Tensor &x, std::uint64_t which);
    // The projection `target` names applied to x: through its adapter when it has one.
    torch::Tensor project(const std::string &target, torch::nn::Linear &linear,
                          const torch::Tensor &x);

    std::int64_t heads_;
    double dropout_;
    compat::AttentionPath attention_path_;
    std::int64_t layers_;
    std::uint64_t memory_budget_;
    std::uint64_t dropout_site_ = 0;
    torch::nn::LayerNorm ln1_{nullptr};
    torch::nn::Linear qkv_{nullptr};  // fused query/key/value projection, dim -> 3*dim
    torch::nn::Linear proj_{nullptr}; // attention output projection (residual)
    torch::nn::LayerNorm ln2_{nullptr};
    torch::nn::Linear fc_{nullptr};               // dim -> 4*dim; null in an MoE block
    torch::nn::Linear fc_out_{nullptr};           // 4*dim -> dim (residual)
    MoeLayer moe_{nullptr};                       // an MoE block's MLP
    std::map<std::string, LoraAdapter> adapters_; // by target name; empty without LoRA
    bool lora_enabled_ = false;
};
TORCH_MODULE(GptBlock);

// Decoder-only transformer language model: token + learned position embeddings, dropout,
// blocks, final LayerNorm, output projection tied to the token embedding.
class GptImpl : public torch::nn::Module {
public:
    explicit GptImpl(const GptOptions &options);
    // tokens [B, T] int64 (T <= seq_len) -> logits [B, T, vocab_size]
    torch::Tensor forward(const torch::Tensor &tokens);
    // Logits of packed rows: every document in a row computes what it computes alone.
    torch::Tensor forward(const torch::Tensor &tokens, const DocumentLayout &layout);
    // Mean cross-entropy of next-token prediction over all B*T positions; with targets of -100
    // (not learned), the mean over each row's learned targets, then over the rows.
    torch::Tensor loss(const torch::Tensor &inputs, const torch::Tensor &targets);
    // The same with the MoE blocks' losses and routing counts (once per forward pass, also
    // with activation checkpointing). With a layout, the rows are packed documents.
    GptLoss lossTerms(const torch::Tensor &inputs, const torch::Tensor &targets,
                      const DocumentLayout *layout = nullptr);
    // The cross-entropy of each target [B, T] (0 where the target is -100), for evaluation.
    torch::Tensor targetLosses(const torch::Tensor &inputs, const torch::Tensor &targets,
                               const DocumentLayout *layout = nullptr);
    const GptOptions &options() const;
    // The blocks, so activation checkpointing can wrap them later.
    torch::nn::ModuleList blocks();
    // Activation checkpointing in training: every k-th block (0, k, 2k, ...) keeps only its
    // input and recomputes its activations in backward. 0 turns it off.
    void setCheckpointEvery(std::int64_t every);
    std::int64_t checkpointEvery() const { return checkpoint_every_; }
    // The token embedding [vocab, dim], also the output projection's weight.
    torch::Tensor tokenEmbeddingWeight() const;

    // GPT-2 initialization: normal(0, 0.02) for linear and embedding weights, residual
    // projections (attention output, MLP output) scaled by 1/sqrt(2*layers), zero biases,
    // LayerNorm at (1, 0). The constructor applies it; call again to re-initialize.
    void resetParameters();

    // Freezes every base parameter and adds LoRA adapters to every block's targets
    // (parameters "blocks.N.lora_<target>.a" / ".b"). Throws std::invalid_argument for bad
    // options or when LoRA is already enabled.
    void enableLora(const LoraOptions &options);
    const std::optional<LoraOptions> &loraOptions() const { return lora_; }
    // Parameters with requires_grad: everything without LoRA, only the adapters with it.
    std::vector<torch::Tensor> trainableParameters() const;
    // Base parameters and buffers under their base names, the adapted weights merged
    // (W + B A * alpha/rank); without LoRA simply the parameters and buffers. Detached. A
    // plain GPT loaded with these computes what this model computes in eval mode.
    NamedTensors mergedState() const;

private:
    // [B*T, dim] final hidden states; the MoE blocks' routing goes to `routing` when given.
    torch::Tensor hidden(const torch::Tensor &tokens, MoeRouting *routing = nullptr,
                         const DocumentLayout *layout = nullptr);

    GptOptions options_;
    torch::nn::Embedding token_embedding_{nullptr};
    torch::nn::Embedding position_embedding_{nullptr};
    torch::nn::ModuleList blocks_{nullptr};
    std::vector<GptBlock> typed_blocks_;
    std::int64_t checkpoint_every_ = 0; // the same modules as blocks_, without dynamic casts
    torch::nn::LayerNorm ln_final_{nullptr};
    std::optional<LoraOptions> lora_;
};
TORCH_MODULE(Gpt);

} // namespace headroom::models
