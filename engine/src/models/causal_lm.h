// Decoder-only language models in the layouts of pretrained Hugging Face checkpoints: GPT-2
// (LayerNorm, learned positions, fused query/key/value, tanh GELU) and the Llama family
// (RMSNorm, rotary positions, grouped-query attention, SwiGLU), which covers Qwen2 (q/k/v
// biases) and Mistral. The module tree mirrors the checkpoint's, so named_parameters() are the
// tensor names of the safetensors file ("model.layers.0.self_attn.q_proj.weight",
// "transformer.h.0.attn.c_attn.weight"). GPT-2's Conv1D weights are held as Linear weights
// ([out, in]); import and export transpose them.
#pragma once

#include "models/base_quantization.h"
#include "models/lora.h"
#include "models/rope.h"

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
    // The attention and MLP projection weights start empty (shape [0]): the import converts
    // each into the base's format as it reads it (CausalLmImpl::storeBaseWeights with the
    // weight), so a compact base never allocates the fp32 model first.
    bool deferred_projections = false;
    double embedding_dropout = 0;
    double residual_dropout = 0;
    double attention_dropout = 0;
};

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

// A module owning named Linear projections that LoRA can adapt (attention and MLP).
class ProjectionsImpl : public torch::nn::Module {
public:
    torch::nn::Linear addLinear(const std::string &name, std::int64_t in, std::int64_t out,
                                bool bias, bool deferred = false);
    torch::Tensor project(const std::string &name, const torch::Tensor &x);
    // Adds an adapter "lora_<name>" to each projection named in `targets`.
    void enableLora(const LoraOptions &options, std::uint64_t first_dropout_site);
    // Holds a projection's frozen weight in `format`: bf16/fp16 as the converted parameter,
    // int8/nf4 quantized in buffers of the Linear ("weight_codes", "weight_scales", ...) with
    // the weight parameter emptied. fp32 leaves it as it is. From `full` ([out, in] float)
    // when given, else from the weight as it is held now.
    void storeBaseWeight(const std::string &name, BaseFormat format,
                         const torch::Tensor &full = {});
    // Holds an already quantized (int8/nf4) weight, e.g. from the quantized-base cache.
    // Throws std::invalid_argument when its shape is not the projection's.
    void installQuantized(const std::string &name, QuantizedWeight weight);
    const std::map<std::string, QuantizedWeight> &quantized() const { return quantized_; }
    // The projection's base weight [out, in] in float32 whatever its storage; detached.
    torch::Tensor baseWeight(const std::string &name) const;
    bool holdsQuantized(const std::string &name) const { return quantized_.count(name) != 0; }
    const std::vector<std::pair<std::string, torch::nn::Linear>> &linears() const {
        return linears_;
    }
    const std::map<std::string, LoraAdapter> &adapters() const { return adapters_; }

private:
    torch::nn::Linear linear(const std::string &name) const;

    std::vector<std::pair<std::string, torch::nn::Linear>> linears_;
    std::map<std::string, LoraAdapter> adapters_;
    std::map<std::string, QuantizedWeight> quantized_;
};
TORCH_MODULE(Projections);

class DecoderLayerImpl : public torch::nn::Module {
public:
    DecoderLayerImpl(const CausalLmOptions &options, std::uint64_t dropout_site);
    // x [B*T, dim] for B rows of T positions, rope the rotary tables of those positions
    // (Llama family); with a cache, this layer's keys and values are appended to keys/values.
    torch::Tensor forward(const torch::Tensor &x, std::int64_t batch, const RopeTables &rope,
                          torch::Tensor *keys, torch::Tensor *values);
    Projections attention() const { return attention_; }
    Projections mlp() const { return mlp_; }
    // "self_attn" / "attn" and "mlp": where the projections sit below the layer.
    std::string attentionName() const;

private:
    torch::Tensor attend(const torch::Tensor &x, std::int64_t batch, const RopeTables &rope,
                         torch::Tensor *keys, torch::Tensor *values);
    torch::Tensor dropout(const torch::Tensor &x, double p, std::uint64_t which);

    CausalLmOptions options_;
    std::uint64_t dropout_site_;
    LmNorm attention_norm_{nullptr};
    Projections attention_{nullptr};
    LmNorm mlp_norm_{nullptr};
    Projections mlp_{nullptr};
};
TORCH_MODULE(DecoderLayer);

class CausalLmImpl : public torch::nn::Module {
public:
    // Parameters are allocated uninitialised (the import fills them), or with
    // resetParameters() for tests.
    explicit CausalLmImpl(CausalLmOptions options);

    // tokens [B, T] int64 -> logits [B, T, vocab]. With a cache, the tokens continue the cached
    // positions and their keys/values are appended. last_only: logits of position T-1 only.
    torch::Tensor forward(const torch::Tensor &tokens, KvCache *cache = nullptr,
                          bool last_only = false);
    // Next-token cross-entropy: the mean over each row's targets that are not -100 (masked
    // positions), then the mean over rows.
    torch::Tensor loss(const torch::Tensor &inputs, const torch::Tensor &targets);

    const CausalLmOptions &options() const { return options_; }
    void setCheckpointEvery(std::int64_t every);
    std::int64_t checkpointEvery() const { return checkpoint_every_; }
    // normal(0, 0.02) weights, zero biases, unit norms: a fresh model (tests, benchmarks).
    void resetParameters();

    // Projection names LoRA can target in this family (q_proj, …, c_attn, c_proj, c_fc).
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
    torch::Tensor hidden(const torch::Tensor &tokens, KvCache *cache);
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
