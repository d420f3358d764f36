#include "models/causal_lm.h"

#include "compat/attention.h"
#include "models/activation_checkpoint.h"
#include "models/keyed_dropout.h"
#include "models/linear_storage.h"
#include "models/quantized_linear.h"
#include "models/token_losses.h"
#include "profile/scopes.h"

#include <cmath>
#include <stdexcept>

namespace headroom::models {

namespace {

constexpr double kInitStd = 0.02;
// Dropout sites (models/keyed_dropout.h), as in the GPT recipe: the embedding's, then a
// stride per layer for its attention weights, two residuals and its adapters.
constexpr std::uint64_t kEmbeddingDropoutSite = 1;
constexpr std::uint64_t kLayerSiteStride = 1000;
constexpr std::uint64_t kAttentionWeightsSite = 1;
constexpr std::uint64_t kAttentionResidualSite = 2;
constexpr std::uint64_t kMlpResidualSite = 3;
constexpr std::uint64_t kAttentionLoraSites = 10;
constexpr std::uint64_t kMlpLoraSites = 20;

bool isGpt2(const CausalLmOptions &options) {
    return options.family == LmFamily::Gpt2;
}

void requirePositive(std::int64_t value, const char *name) {
    if (value < 1) {
        throw std::invalid_argument(std::string("model option ") + name +
                                    " must be at least 1, got " + std::to_string(value));
    }
}

void requireProbability(double value, const char *name) {
    if (!(value >= 0.0 && value < 1.0)) {
        throw std::invalid_argument(std::string("model option ") + name +
                                    " must be in [0, 1), got " + std::to_string(value));
    }
}

torch::nn::Embedding uninitialisedEmbedding(std::int64_t count, std::int64_t dim) {
    torch::nn::Embedding embedding(torch::nn::EmbeddingOptions(1, 1));
    embedding->options.num_embeddings(count).embedding_dim(dim);
    embedding->weight.set_data(torch::empty({count, dim}));
    return embedding;
}

} // namespace

void validateCausalLmOptions(const CausalLmOptions &options) {
    requirePositive(options.vocab_size, "vocab_size");
    requirePositive(options.dim, "dim");
    requirePositive(options.layers, "layers");
    requirePositive(options.heads, "heads");
    requirePositive(options.head_dim, "head_dim");
    requirePositive(options.hidden, "hidden");
    requirePositive(options.max_positions, "max_positions");
    const std::int64_t kv_heads = isGpt2(options) ? options.heads : options.kv_heads;
    requirePositive(kv_heads, "kv_heads");
    if (options.heads % kv_heads != 0) {
        throw std::invalid_argument("model option heads (" + std::to_string(options.heads) +
                                    ") must be a multiple of kv_heads (" +
                                    std::to_string(kv_heads) + ")");
    }
    if (isGpt2(options) && options.heads * options.head_dim != options.dim) {
        throw std::invalid_argument("GPT-2 needs heads * head_dim == dim");
    }
    if (!(options.norm_eps > 0)) {
        throw std::invalid_argument("model option norm_eps must be positive");
    }
    requireProbability(options.embedding_dropout, "embedding_dropout");
    requireProbability(options.residual_dropout, "residual_dropout");
    requireProbability(options.attention_dropout, "attention_dropout");
    if (!isGpt2(options)) {
        RopeOptions rope = options.rope;
        rope.head_dim = options.head_dim;
        validateRopeOptions(rope);
    }
}

LmNormImpl::LmNormImpl(std::int64_t dim, double eps, bool rms) : eps_(eps), rms_(rms) {
    weight_ = register_parameter("weight", torch::ones({dim}));
    if (!rms_) {
        bias_ = register_parameter("bias", torch::zeros({dim}));
    }
}

torch::Tensor LmNormImpl::forward(const torch::Tensor &x) {
    if (!rms_) {
        return torch::layer_norm(x, {x.size(-1)}, weight_, bias_, eps_);
    }
    // In float32 whatever the compute dtype, then back, then the weight: the reference order.
    const torch::Tensor wide = x.to(torch::kFloat);
    const torch::Tensor normed = wide * torch::rsqrt(wide.pow(2).mean(-1, true) + eps_);
    return weight_ * normed.to(x.scalar_type());
}

DecoderLayerImpl::DecoderLayerImpl(const CausalLmOptions &options, std::uint64_t dropout_site)
    : options_(options), dropout_site_(dropout_site) {
    const bool gpt2 = isGpt2(options_);
    const std::int64_t dim = options_.dim;
    const std::int64_t width = options_.heads * options_.head_dim;
    attention_norm_ =
        register_module(gpt2 ? "ln_1" : "input_layernorm", LmNorm(dim, options_.norm_eps, !gpt2));
    attention_ = register_module(attentionName(), Projections());
    mlp_norm_ = register_module(gpt2 ? "ln_2" : "post_attention_layernorm",
                                LmNorm(dim, options_.norm_eps, !gpt2));
    mlp_ = register_module("mlp", Projections());
    const bool deferred = options_.deferred_projections;
    if (gpt2) {
        attention_->addLinear("c_attn", dim, 3 * dim, true, deferred);
        attention_->addLinear("c_proj", dim, dim, true, deferred);
        mlp_->addLinear("c_fc", dim, options_.hidden, true, deferred);
        mlp_->addLinear("c_proj", options_.hidden, dim, true, deferred);
        return;
    }
    const std::int64_t kv_width = options_.kv_heads * options_.head_dim;
    attention_->addLinear("q_proj", dim, width, options_.qkv_bias, deferred);
    attention_->addLinear("k_proj", dim, kv_width, options_.qkv_bias, deferred);
    attention_->addLinear("v_proj", dim, kv_width, options_.qkv_bias, deferred);
    attention_->addLinear("o_proj", width, dim, options_.o_bias, deferred);
    mlp_->addLinear("gate_proj", dim, options_.hidden, options_.mlp_bias, deferred);
    mlp_->addLinear("up_proj", dim, options_.hidden, options_.mlp_bias, deferred);
    mlp_->addLinear("down_proj", options_.hidden, dim, options_.mlp_bias, deferred);
}

std::string DecoderLayerImpl::attentionName() const {
    return isGpt2(options_) ? "attn" : "self_attn";
}

torch::Tensor DecoderLayerImpl::dropout(const torch::Tensor &x, double p, std::uint64_t which) {
    return p > 0 && is_training() ? keyedDropout(x, p, dropout_site_ + which) : x;
}

torch::Tensor DecoderLayerImpl::attend(const torch::Tensor &x, std::int64_t batch,
                                       const RopeTables &rope, torch::Tensor *keys,
                                       torch::Tensor *values) {
    const std::int64_t length = x.size(0) / batch;
    const std::int64_t heads = options_.heads;
    const std::int64_t head_dim = options_.head_dim;
    const auto split_heads = [&](const torch::Tensor &t, std::int64_t count) {
        return t.view({batch, length, count, head_dim}).transpose(1, 2); // [B, H, T, D]
    };
    torch::Tensor q;
    torch::Tensor k;
    torch::Tensor v;
    std::int64_t kv_heads = heads;
    std::string output = "c_proj";
    if (isGpt2(options_)) {
        const torch::Tensor qkv = attention_->project("c_attn", x).view({batch, length, 3, -1});
        q = split_heads(qkv.select(2, 0), heads);
        k = split_heads(qkv.select(2, 1), heads);
        v = split_heads(qkv.select(2, 2), heads);
    } else {
        kv_heads = options_.kv_heads;
        output = "o_proj";
        q = applyRope(split_heads(attention_->project("q_proj", x), heads), rope);
        k = applyRope(split_heads(attention_->project("k_proj", x), kv_heads), rope);
        v = split_heads(attention_->project("v_proj", x), kv_heads);
    }
    if (keys != nullptr) {
        *keys = keys->defined() ? torch::cat({*keys, k}, 2) : k;
        *values = values->defined() ? torch::cat({*values, v}, 2) : v;
        k = *keys;
        v = *values;
    }
    const double p = is_training() ? options_.attention_dropout : 0.0;
    const std::uint64_t site = dropout_site_ + kAttentionWeightsSite;
    const torch::Tensor attended = compat::causalAttention(
        q, k, v, 1.0 / std::sqrt(static_cast<double>(head_dim)), p,
        [p, site](const torch::Tensor &weights) { return keyedDropout(weights, p, site); });
    return attention_->project(
        output, attended.transpose(1, 2).reshape({batch * length, heads * head_dim}));
}

torch::Tensor DecoderLayerImpl::forward(const torch::Tensor &x, std::int64_t batch,
                                        const RopeTables &rope, torch::Tensor *keys,
                                        torch::Tensor *values) {
    const double p = options_.residual_dropout;
    torch::Tensor h;
    {
        const profile::ModuleScope scope("attention");
        h = x + dropout(attend(attention_norm_(x), batch, rope, keys, values), p,
                        kAttentionResidualSite);
    }
    const profile::ModuleScope scope("mlp");
    const torch::Tensor normed = mlp_norm_(h);
    torch::Tensor mlp_out;
    if (isGpt2(options_)) {
        mlp_out = mlp_->project("c_proj", torch::gelu(mlp_->project("c_fc", normed), "tanh"));
    } else {
        mlp_out = mlp_->project("down_proj", torch::silu(mlp_->project("gate_proj", normed)) *
                                                 mlp_->project("up_proj", normed));
    }
    return h + dropout(mlp_out, p, kMlpResidualSite);
}

CausalLmImpl::CausalLmImpl(CausalLmOptions options) : options_(std::move(options)) {
    if (isGpt2(options_)) {
        options_.kv_heads = options_.heads;
    } else {
        options_.rope.head_dim = options_.head_dim;
    }
    validateCausalLmOptions(options_);
    const bool gpt2 = isGpt2(options_);
    auto body =
        register_module(gpt2 ? "transformer" : "model", std::make_shared<torch::nn::Module>());
    embedding_ = body->register_module(gpt2 ? "wte" : "embed_tokens",
                                       uninitialisedEmbedding(options_.vocab_size, options_.dim));
    if (gpt2) {
        positions_ = body->register_module(
            "wpe", uninitialisedEmbedding(options_.max_positions, options_.dim));
    }
    torch::nn::ModuleList list;
    body->register_module(gpt2 ? "h" : "layers", list);
    for (std::int64_t layer = 0; layer < options_.layers; ++layer) {
        layers_.emplace_back(options_, kLayerSiteStride * static_cast<std::uint64_t>(layer + 1));
        list->push_back(layers_.back());
    }
    final_norm_ = body->register_module(gpt2 ? "ln_f" : "norm",
                                        LmNorm(options_.dim, options_.norm_eps, !gpt2));
    if (!options_.tie_embeddings) {
        lm_head_ = register_module("lm_head",
                                   uninitialisedLinear(options_.dim, options_.vocab_size, false));
    }
    if (!gpt2) {
        inverse_frequencies_ = ropeInverseFrequencies(options_.rope);
    }
}

void CausalLmImpl::resetParameters() {
    torch::NoGradGuard no_grad;
    for (auto &item : named_parameters()) {
        const std::string &name = item.key();
        torch::Tensor &parameter = item.value();
        const bool norm =
            name.find("norm") != std::string::npos || name.find("ln_") != std::string::npos;
        if (norm) {
            parameter.fill_(
                name.size() >= 4 && name.compare(name.size() - 4, 4, "bias") == 0 ? 0.0 : 1.0);
        } else if (parameter.dim() == 1) {
            parameter.zero_();
        } else {
            parameter.normal_(0.0, kInitStd);
        }
    }
}

const torch::Tensor &CausalLmImpl::inverseFrequencies(const torch::Device &device) {
    if (inverse_frequencies_.defined() && inverse_frequencies_.device() != device) {
        inverse_frequencies_ = inverse_frequencies_.to(device);
    }
    return inverse_frequencies_;
}

torch::Tensor CausalLmImpl::hidden(const torch::Tensor &tokens, KvCache *cache) {
    TORCH_CHECK(tokens.dim() == 2 && tokens.scalar_type() == torch::kLong,
                "the model expects int64 tokens [B, T], got ", tokens.sizes(), " ",
                tokens.scalar_type());
    const std::int64_t batch = tokens.size(0);
    const std::int64_t length = tokens.size(1);
    const std::int64_t offset = cache != nullptr ? cache->length : 0;
    TORCH_CHECK(length >= 1 && offset + length <= options_.max_positions, "positions ", offset,
                "..", offset + length - 1, " are outside the model's context of ",
                options_.max_positions);
    torch::Tensor x;
    {
        const profile::ModuleScope scope("embeddings");
        x = embedding_(tokens);
        if (positions_) {
            x = x + positions_->weight.narrow(0, offset, length);
        }
        if (options_.embedding_dropout > 0 && is_training()) {
            x = keyedDropout(x, options_.embedding_dropout, kEmbeddingDropoutSite);
        }
        x = x.reshape({batch * length, options_.dim});
    }
    if (cache != nullptr && cache->keys.size() != layers_.size()) {
        cache->keys.assign(layers_.size(), torch::Tensor());
        cache->values.assign(layers_.size(), torch::Tensor());
    }
    // Every layer rotates the same positions: the tables are made once per forward.
    RopeTables rope;
    if (inverse_frequencies_.defined()) {
        rope = ropeTables(inverseFrequencies(tokens.device()), offset, length);
    }
    for (std::size_t index = 0; index < layers_.size(); ++index) {
        DecoderLayer &layer = layers_[index];
        if (cache != nullptr) {
            x = layer->forward(x, batch, rope, &cache->keys[index], &cache->values[index]);
            continue;
        }
        const bool recompute = checkpoint_every_ > 0 && is_training() &&
                               static_cast<std::int64_t>(index) % checkpoint_every_ == 0;
        // By value: a checkpointed layer runs again in backward, after this function returned.
        const auto run = [&layer, batch, rope, index](const torch::Tensor &input) {
            const profile::ModuleScope scope("layers", static_cast<std::int64_t>(index));
            return layer->forward(input, batch, rope, nullptr, nullptr);
        };
        x = recompute ? checkpointed(run, x) : run(x);
    }
    if (cache != nullptr) {
        cache->length += length;
    }
    const profile::ModuleScope scope("norm");
    return final_norm_(x); // [B*T, dim]
}

torch::Tensor CausalLmImpl::forward(const torch::Tensor &tokens, KvCache *cache, bool last_only) {
    const std::int64_t batch = tokens.size(0);
    torch::Tensor h = hidden(tokens, cache);
    std::int64_t length = tokens.size(1);
    if (last_only) {
        h = h.view({batch, length, options_.dim}).select(1, length - 1);
        length = 1;
    }
    const torch::Tensor &head = lm_head_ ? lm_head_->weight : embedding_->weight;
    return applyLinear(h, head, {}).view({batch, length, options_.vocab_size});
}

torch::Tensor CausalLmImpl::loss(const torch::Tensor &inputs, const torch::Tensor &targets) {
    TORCH_CHECK(targets.sizes() == inputs.sizes(), "targets ", targets.sizes(),
                " must have the shape of the inputs ", inputs.sizes());
    const torch::Tensor &head = lm_head_ ? lm_head_->weight : embedding_->weight;
    const torch::Tensor h = hidden(inputs, nullptr);
    const profile::ModuleScope scope("lm_head");
    // Each row weighs the same whatever its number of targets, so a step cut into smaller
    // micro-batches (out-of-memory recovery) sums to the same loss.
    const torch::Tensor losses = tokenLosses(h, head, targets.reshape({-1})).view(targets.sizes());
    const torch::Tensor counts = targets.ne(-100).sum(1).clamp_min(1).to(losses.scalar_type());
    return (losses.sum(1) / counts).mean();
}

void CausalLmImpl::setCheckpointEvery(std::int64_t every) {
    if (every < 0) {
        throw std::invalid_argument("checkpointing must be 0 (off) or a layer interval >= 1");
    }
    checkpoint_every_ = every;
}

std::set<std::string> CausalLmImpl::projectionNames() const {
    std::set<std::string> names;
    for (const Projections &projections : {layers_.front()->attention(), layers_.front()->mlp()}) {
        for (const auto &item : projections->linears()) {
            names.insert(item.first);
        }
    }
    return names;
}

void CausalLmImpl::enableLora(const LoraOptions &options) {
    if (lora_) {
        throw std::invalid_argument("LoRA is already enabled on this model");
    }
    validateLoraHyperparameters(options);
    if (options.targets().empty()) {
        throw std::invalid_argument("LoRA targets are empty");
    }
    const std::set<std::string> valid = projectionNames();
    for (const std::string &target : options.targets()) {
        if (valid.count(target) == 0) {
            std::string list;
            for (const std::string &name : valid) {
                list += (list.empty() ? "" : ", ") + name;
            }
            throw std::invalid_argument("this model has no projection '" + target +
                                        "' to adapt; it has " + list);
        }
    }
    freezeParameters(*this);
    for (std::size_t index = 0; index < layers_.size(); ++index) {
        const std::uint64_t site = kLayerSiteStride * (index + 1);
        layers_[index]->attention()->enableLora(options, site + kAttentionLoraSites);
        layers_[index]->mlp()->enableLora(options, site + kMlpLoraSites);
    }
    lora_ = options;
}

std::vector<std::pair<std::string, Projections>> CausalLmImpl::projectionGroups() const {
    std::vector<std::pair<std::string, Projections>> groups;
    const std::string layers = isGpt2(options_) ? "transformer.h." : "model.layers.";
    for (std::size_t index = 0; index < layers_.size(); ++index) {
        const std::string prefix = layers + std::to_string(index) + ".";
        const DecoderLayer &layer = layers_[index];
        groups.emplace_back(prefix + layer->attentionName(), layer->attention());
        groups.emplace_back(prefix + "mlp", layer->mlp());
    }
    return groups;
}

std::vector<std::pair<std::string, LoraAdapter>> CausalLmImpl::loraAdapters() const {
    std::vector<std::pair<std::string, LoraAdapter>> adapters;
    for (const auto &[path, projections] : projectionGroups()) {
        for (const auto &[name, adapter] : projections->adapters()) {
            adapters.emplace_back(path + "." + name, adapter);
        }
    }
    return adapters;
}

bool CausalLmImpl::installQuantizedWeight(const std::string &checkpoint_name,
                                          QuantizedWeight weight) {
    for (auto [path, projections] : projectionGroups()) {
        for (const auto &item : projections->linears()) {
            if (checkpoint_name == path + "." + item.first + ".weight") {
                base_format_ = weight.format;
                projections->installQuantized(item.first, std::move(weight));
                return true;
            }
        }
    }
    return false;
}

std::vector<std::pair<std::string, QuantizedWeight>> CausalLmImpl::quantizedWeights() const {
    std::vector<std::pair<std::string, QuantizedWeight>> weights;
    for (const auto &[path, projections] : projectionGroups()) {
        for (const auto &[name, weight] : projections->quantized()) {
            if (isQuantized(weight.format)) {
                weights.emplace_back(path + "." + name + ".weight", weight);
            }
        }
    }
    return weights;
}

bool CausalLmImpl::storeBaseWeights(BaseFormat format, const std::string &only,
                                    const torch::Tensor &full) {
    bool matched = false;
    for (auto [path, projections] : projectionGroups()) {
        for (const auto &item : projections->linears()) {
            if (only.empty() || only == path + "." + item.first + ".weight") {
                projections->storeBaseWeight(item.first, format, full);
                matched = true;
            }
        }
    }
    if (matched) {
        base_format_ = format;
    }
    return matched;
}

std::int64_t CausalLmImpl::quantizedParameterCount() const {
    std::int64_t count = 0;
    for (const auto &[path, projections] : projectionGroups()) {
        for (const auto &[name, linear] : projections->linears()) {
            if (projections->holdsQuantized(name) && linear->weight.numel() == 0) {
                count += linear->options.in_features() * linear->options.out_features();
            }
        }
    }
    return count;
}

NamedTensors CausalLmImpl::mergedState() const {
    std::map<std::string, torch::Tensor> merged;
    for (const auto &[path, projections] : projectionGroups()) {
        for (const auto &[name, linear] : projections->linears()) {
            const auto adapter = projections->adapters().find(name);
            const bool adapted = adapter != projections->adapters().end();
            if (adapted || base_format_ != BaseFormat::Fp32) {
                torch::Tensor weight = projections->baseWeight(name);
                merged[path + "." + name + ".weight"] =
                    adapted ? weight + adapter->second->update() : weight;
            }
        }
    }
    NamedTensors state;
    for (const auto &item : named_parameters()) {
        const std::string &name = item.key();
        if (name.rfind("lora_", 0) == 0 || name.find(".lora_") != std::string::npos) {
            continue;
        }
        const auto replacement = merged.find(name);
        state.emplace_back(name, replacement != merged.end() ? replacement->second
                                                             : item.value().detach());
    }
    return state;
}

} // namespace headroom::models
