// Decoder-only language models in the layouts of pretrained Hugging Face checkpoints: GPT-2
// (LayerNorm, learned positions, fused query/key/value, tanh GELU) and the Llama family
// (RMSNorm, rotary positions, grouped-query attention, SwiGLU), which covers Qwen2 (q/k/v
// biases), Mistral and Mixtral (sparse Mixture-of-Experts MLPs). The module tree mirrors the
// checkpoint's, so named_parameters() are the tensor names of the safetensors file
// ("model.layers.0.self_attn.q_proj.weight", "transformer.h.0.attn.c_attn.weight"). GPT-2's Conv1D
// weights are held as Linear weights
// ([out, in]); import and export transpose them.
#pragma once

#include "compat/attention_path.h"
#include "models/document_layout.h"
#include "models/lora.h"
#include "models/moe_routing.h"
#include "models/projections.h"
#include "models/rope.h"
#include "models/sparse_moe_block.h"
#include "quant/base_quantization.h"

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace headroom::models {

enum class LmFamily { Gpt2, Llama };

struct CausalLmOptions {
    LmFamily family = LmFamily::Llama;
    std::int64_t vocab_size = 0;
    std::int64_t dim = 0;
    std::int64_t layers = 0;
    std::int64_t heads = 0;
    std::int64_t kv_heads = 0; // Llama family; GPT-2 uses heads
    std::int64_t head_dim = 0;
    std::int64_t hidden = 0; // MLP width
    std::int64_t max_positions = 0;
    double norm_eps = 1e-5;
    RopeOptions rope;      // Llama family
    bool qkv_bias = false; // GPT-2: every projection has a bias
    bool o_bias = false;
    bool mlp_bias = false;
    bool tie_embeddings = false;
    // GPT-2 family: the MLP's GELU exact (erf, activation_function "gelu") instead of the tanh
    // approximation ("gelu_new").
    bool exact_gelu = false;
    // The attention and MLP projection weights start empty (shape [0]): the import converts
    // each into the base's format as it reads it (CausalLmImpl::storeBaseWeights with the
    // weight), so a compact base never allocates the fp32 model first.
    bool deferred_projections = false;
    double embedding_dropout = 0;
    double residual_dropout = 0;
    double attention_dropout = 0;
    // model.attention and memory.budget: which form of attention runs (compat/attention_path.h).
    compat::AttentionPath attention = compat::AttentionPath::Auto;
    std::uint64_t memory_budget = 0;
    // Mixtral (Llama family): every layer's MLP is a sparse MoE block of `experts` SwiGLU
    // experts of width `hidden`, each token routed to experts_per_token of them
    // (models/sparse_moe_block.h); 0 = dense MLPs.
    std::int64_t experts = 0;
    std::int64_t experts_per_token = 0;
    double router_jitter = 0; // router_jitter_noise: input noise in training
};

inline bool isGpt2(const CausalLmOptions &options) {
    return options.family == LmFamily::Gpt2;
}

// Throws std::invalid_argument naming the bad option.
void validateCausalLmOptions(const CausalLmOptions &options);

// Keys and values of every layer for the positions seen so far ([B, kv_heads, L, D] each).
struct KvCache {
    std::vector<torch::Tensor> keys;
    std::vector<torch::Tensor> values;
    std::int64_t length = 0;
};

class LmNormImpl : public torch::nn::Module {
public:
    LmNormImpl(std::int64_t dim, double eps, bool rms);
    torch::Tensor forward(const torch::Tensor &x);

private:
    torch::Tensor weight_;
    torch::Tensor bias_; // LayerNorm only
    double eps_;
    bool rms_;
};
TORCH_MODULE(LmNorm);

class DecoderLayerImpl : public torch::nn::Module {
public:
    DecoderLayerImpl(const CausalLmOptions &options, std::uint64_t dropout_site);
    // x [B*T, dim] for B rows of T positions, rope the rotary tables of those positions
    // (Llama family); with a cache, this layer's keys and values are appended to keys/values.
    // mask: a packed batch's document mask (DocumentLayout::mask), else undefined (causal).
    torch::Tensor forward(const torch::Tensor &x, std::int64_t batch, const RopeTables &rope,
                          torch::Tensor *keys, torch::Tensor *values,
                          const torch::Tensor &mask = {});
    // A sparse MoE layer's forward pass with its routing: {output, probability_sums, counts,
    // z_loss} (SparseMoeOutput's); {output} for a dense layer.
    std::vector<torch::Tensor> forwardRouted(const torch::Tensor &x, std::int64_t batch,
                                             const RopeTables &rope,
                                             const torch::Tensor &mask = {});
    bool isSparseMoe() const { return !moe_.is_empty(); }
    // The layer's projections under their paths below the layer: "self_attn" / "attn", then
    // "mlp" or each expert's "block_sparse_moe.experts.N".
    std::vector<std::pair<std::string, Projections>> projectionGroups() const;
    // Adapters on the projections named in options.targets, dropout sites keyed below the
    // layer's.
    void enableLora(const LoraOptions &options);

private:
    std::string attentionName() const;
    torch::Tensor attend(const torch::Tensor &x, std::int64_t batch, const RopeTables &rope,
                         torch::Tensor *keys, torch::Tensor *values, const torch::Tensor &mask);
    torch::Tensor dropout(const torch::Tensor &x, double p, std::uint64_t which);
    // The MLP half (norm, MLP or sparse MoE block, residual) after the attention's residual h;
    // a sparse MoE block's routing goes to `routing` when given.
    torch::Tensor feedForward(const torch::Tensor &h, std::int64_t batch, SparseMoeOutput *routing);

    CausalLmOptions options_;
    std::uint64_t dropout_site_;
    LmNorm attention_norm_{nullptr};
    Projections attention_{nullptr};
    LmNorm mlp_norm_{nullptr};
    Projections mlp_{nullptr};    // dense layers
    SparseMoeBlock moe_{nullptr}; // Mixtral: "block_sparse_moe"
};
TORCH_MODULE(DecoderLayer);

struct CausalLmLoss {
    torch::Tensor loss;
    std::optional<MoeRouting> moe; // with sparse MoE layers
};

class CausalLmImpl : public torch::nn::Module {
public:
    // Parameters are allocated uninitialised (the import fills them), or with
    // resetParameters() for tests.
    explicit CausalLmImpl(CausalLmOptions options);

    // tokens [B, T] int64 -> logits [B, T, vocab]. With a cache, the tokens continue the cached
    // positions and their keys/values are appended. last_only: logits of position T-1 only.
    torch::Tensor forward(const torch::Tensor &tokens, KvCache *cache = nullptr,
                          bool last_only = false);
    // Logits of packed rows: every document in a row computes what it computes alone.
    torch::Tensor forward(const torch::Tensor &tokens, const DocumentLayout &layout);
    // Next-token cross-entropy: the mean over each row's targets that are not -100 (masked
    // positions), then the mean over rows.
    torch::Tensor loss(const torch::Tensor &inputs, const torch::Tensor &targets);
    // The same with the sparse MoE layers' routing (Mixtral): the balancing loss
    // (sparseMoeBalancingLoss), z-losses and expert counts of the one forward pass, also with
    // activation checkpointing. No routing for a dense model. With a layout, the rows are
    // packed documents (positions and attention per document).
    CausalLmLoss lossTerms(const torch::Tensor &inputs, const torch::Tensor &targets,
                           const DocumentLayout *layout = nullptr);
    // The cross-entropy of each target [B, T] (0 where the target is -100), for evaluation.
    // `temperature`: of the logits divided by it (online RL scores its samples so).
    torch::Tensor targetLosses(const torch::Tensor &inputs, const torch::Tensor &targets,
                               const DocumentLayout *layout = nullptr, double temperature = 1);

    const CausalLmOptions &options() const { return options_; }
    void setCheckpointEvery(std::int64_t every);
    std::int64_t checkpointEvery() const { return checkpoint_every_; }
    // normal(0, 0.02) weights, zero biases, unit norms: a fresh model (tests, benchmarks).
    void resetParameters();

    // Projection names LoRA can target in this family (q_proj, …, c_attn, c_proj, c_fc; a
    // sparse MoE layer's experts' w1, w2, w3 — never its router).
    std::set<std::string> projectionNames() const;
    // Freezes every base parameter and adapts the projections named in options.targets.
    void enableLora(const LoraOptions &options);
    const std::optional<LoraOptions> &loraOptions() const { return lora_; }
    // Each adapter with the checkpoint path of the projection it adapts
    // ("model.layers.0.self_attn.q_proj").
    std::vector<std::pair<std::string, LoraAdapter>> loraAdapters() const;
    // Parameters under their checkpoint names in float32, adapted weights merged and a base
    // held in another format dequantized; detached.
    NamedTensors mergedState() const;

    // Holds the attention and MLP projection weights of the frozen base in `format`
    // (ProjectionsImpl::storeBaseWeight); embeddings, norms and the output head stay float32.
    // With `only`, just the projection whose weight has that checkpoint name (the import
    // converts tensor by tensor). Returns whether a weight matched.
    bool storeBaseWeights(BaseFormat format, const std::string &only = "",
                          const torch::Tensor &full = {});
    // The int8/nf4 projection weight under a checkpoint name; false when no projection has it.
    bool installQuantizedWeight(const std::string &checkpoint_name, QuantizedWeight weight);
    // Every int8/nf4-held projection weight under its checkpoint name.
    std::vector<std::pair<std::string, QuantizedWeight>> quantizedWeights() const;
    BaseFormat baseFormat() const { return base_format_; }
    // Weights of projections held as int8/nf4 codes, which parameters() no longer counts.
    std::int64_t quantizedParameterCount() const;

private:
    // Each layer's projections with the checkpoint path they sit under
    // ("model.layers.0.self_attn").
    std::vector<std::pair<std::string, Projections>> projectionGroups() const;
    torch::Tensor hidden(const torch::Tensor &tokens, KvCache *cache, MoeRouting *routing = nullptr,
                         const DocumentLayout *layout = nullptr);
    const torch::Tensor &inverseFrequencies(const torch::Device &device);

    CausalLmOptions options_;
    torch::nn::Embedding embedding_{nullptr};
    torch::nn::Embedding positions_{nullptr}; // GPT-2
    std::vector<DecoderLayer> layers_;
    LmNorm final_norm_{nullptr};
    torch::nn::Linear lm_head_{nullptr}; // absent when tied
    torch::Tensor inverse_frequencies_;  // not a parameter: derived from the options
    std::int64_t checkpoint_every_ = 0;
    std::optional<LoraOptions> lora_;
    BaseFormat base_format_ = BaseFormat::Fp32;
};
TORCH_MODULE(CausalLm);

} // namespace headroom::models
