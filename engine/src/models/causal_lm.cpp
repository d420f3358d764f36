#include "models/causal_lm.h"

#include "compat/attention.h"
#include "models/activation_checkpoint.h"
#include "models/keyed_dropout.h"
#include "models/linear_storage.h"
#include "models/model_setup.h"
#include "models/quantized_linear.h"
#include "models/token_losses.h"
#include "profile/scopes.h"

#include <cmath>
#include <stdexcept>

namespace headroom::models {

namespace {

torch::nn::Embedding uninitialisedEmbedding(std::int64_t count, std::int64_t dim) {
    torch::nn::Embedding embedding(torch::nn::EmbeddingOptions(1, 1));
    embedding->options.num_embeddings(count).embedding_dim(dim);
    embedding->weight.set_data(torch::empty({count, dim}));
    return embedding;
}

} // namespace

void validateCausalLmOptions(const CausalLmOptions &options) {
    requirePositiveOption("model", options.vocab_size, "vocab_size");
    requirePositiveOption("model", options.dim, "dim");
    requirePositiveOption("model", options.layers, "layers");
    requirePositiveOption("model", options.heads, "heads");
    requirePositiveOption("model", options.head_dim, "head_dim");
    requirePositiveOption("model", options.hidden, "hidden");
    requirePositiveOption("model", options.max_positions, "max_positions");
    const std::int64_t kv_heads = isGpt2(options) ? options.heads : options.kv_heads;
    requirePositiveOption("model", kv_heads, "kv_heads");
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
    requireProbabilityOption("model", options.embedding_dropout, "embedding_dropout");
    requireProbabilityOption("model", options.residual_dropout, "residual_dropout");
    requireProbabilityOption("model", options.attention_dropout, "attention_dropout");
    requireProbabilityOption("model", options.router_jitter, "router_jitter");
    if (options.experts != 0) {
        if (isGpt2(options) || options.experts < 1 || options.experts > kMaxSparseExperts) {
            throw std::invalid_argument("model option experts must be 0 (dense) or 1 to " +
                                        std::to_string(kMaxSparseExperts) +
                                        " (Llama family), got " + std::to_string(options.experts));
        }
        if (options.experts_per_token < 1 || options.experts_per_token > options.experts) {
            throw std::invalid_argument("model option experts_per_token must be in 1.." +
                                        std::to_string(options.experts) + ", got " +
                                        std::to_string(options.experts_per_token));
        }
    }
    if (!isGpt2(options)) {
        RopeOptions rope = options.rope;
        rope.head_dim = options.head_dim;
        validateRopeOptions(rope);
    }
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

torch::Tensor CausalLmImpl::hidden(const torch::Tensor &tokens, KvCache *cache, MoeRouting *routing,
                                   const DocumentLayout *layout) {
    TORCH_CHECK(tokens.dim() == 2 && tokens.scalar_type() == torch::kLong,
                "the model expects int64 tokens [B, T], got ", tokens.sizes(), " ",
                tokens.scalar_type());
    const std::int64_t batch = tokens.size(0);
    const std::int64_t length = tokens.size(1);
    const std::int64_t offset = cache != nullptr ? cache->length : 0;
    TORCH_CHECK(length >= 1 && offset + length <= options_.max_positions, "positions ", offset,
                "..", offset + length - 1, " are outside the model's context of ",
                options_.max_positions);
    const bool packed = layout != nullptr && layout->defined();
    TORCH_CHECK(!packed || (cache == nullptr && layout->positions.sizes() == tokens.sizes()),
                "a document layout ", packed ? layout->positions.sizes() : tokens.sizes(),
                " must match the tokens ", tokens.sizes(), " and takes no cache");
    const torch::Tensor mask = packed ? layout->mask : torch::Tensor();
    torch::Tensor x;
    {
        const profile::ModuleScope scope("embeddings");
        x = embedding_(tokens);
        if (positions_) {
            x = x + (packed ? positions_(layout->positions)
                            : positions_->weight.narrow(0, offset, length));
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
        rope = packed ? ropeTables(inverseFrequencies(tokens.device()), layout->positions)
                      : ropeTables(inverseFrequencies(tokens.device()), offset, length);
    }
    std::vector<torch::Tensor> probability_sums;
    std::vector<torch::Tensor> counts;
    std::vector<torch::Tensor> z_losses;
    for (std::size_t index = 0; index < layers_.size(); ++index) {
        DecoderLayer &layer = layers_[index];
        if (cache != nullptr) {
            x = layer->forward(x, batch, rope, &cache->keys[index], &cache->values[index]);
            continue;
        }
        const bool recompute = checkpoint_every_ > 0 && is_training() &&
                               static_cast<std::int64_t>(index) % checkpoint_every_ == 0;
        if (routing == nullptr || !layer->isSparseMoe()) {
            // By value: a checkpointed layer runs again in backward, after this function
            // returned.
            const auto run = [&layer, batch, rope, mask, index](const torch::Tensor &input) {
                const profile::ModuleScope scope("layers", static_cast<std::int64_t>(index));
                return layer->forward(input, batch, rope, nullptr, nullptr, mask);
            };
            x = recompute ? checkpointed(run, x) : run(x);
            continue;
        }
        const auto run = [&layer, batch, rope, mask, index](const torch::Tensor &input) {
            const profile::ModuleScope scope("layers", static_cast<std::int64_t>(index));
            return layer->forwardRouted(input, batch, rope, mask);
        };
        const std::vector<torch::Tensor> parts = recompute ? checkpointedOutputs(run, x) : run(x);
        x = parts.at(0);
        probability_sums.push_back(parts.at(1));
        counts.push_back(parts.at(2));
        z_losses.push_back(parts.at(3));
    }
    if (!counts.empty()) {
        routing->aux_loss = sparseMoeBalancingLoss(probability_sums, counts, length);
        routing->z_loss = torch::stack(z_losses).mean().detach();
        for (const torch::Tensor &layer_counts : counts) {
            routing->expert_counts.push_back(layer_counts.sum(0).to(torch::kCPU));
            routing->dropped.push_back(torch::zeros({}, torch::kLong));
        }
        routing->assignments = batch * length * options_.experts_per_token;
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

torch::Tensor CausalLmImpl::forward(const torch::Tensor &tokens, const DocumentLayout &layout) {
    const std::int64_t batch = tokens.size(0);
    const torch::Tensor h = hidden(tokens, nullptr, nullptr, &layout);
    const torch::Tensor &head = lm_head_ ? lm_head_->weight : embedding_->weight;
    return applyLinear(h, head, {}).view({batch, tokens.size(1), options_.vocab_size});
}

torch::Tensor CausalLmImpl::loss(const torch::Tensor &inputs, const torch::Tensor &targets) {
    return lossTerms(inputs, targets).loss;
}

CausalLmLoss CausalLmImpl::lossTerms(const torch::Tensor &inputs, const torch::Tensor &targets,
                                     const DocumentLayout *layout) {
    TORCH_CHECK(targets.sizes() == inputs.sizes(), "targets ", targets.sizes(),
                " must have the shape of the inputs ", inputs.sizes());
    const torch::Tensor &head = lm_head_ ? lm_head_->weight : embedding_->weight;
    MoeRouting routing;
    const torch::Tensor h = hidden(inputs, nullptr, &routing, layout);
    const profile::ModuleScope scope("lm_head");
    // Each row weighs the same whatever its number of targets, so a step cut into smaller
    // micro-batches (out-of-memory recovery) sums to the same loss.
    const torch::Tensor losses = tokenLosses(h, head, targets.reshape({-1})).view(targets.sizes());
    const torch::Tensor counts = targets.ne(-100).sum(1).clamp_min(1).to(losses.scalar_type());
    CausalLmLoss result;
    result.loss = (losses.sum(1) / counts).mean();
    if (!routing.expert_counts.empty()) {
        result.moe = std::move(routing);
    }
    return result;
}

torch::Tensor CausalLmImpl::targetLosses(const torch::Tensor &inputs, const torch::Tensor &targets,
                                         const DocumentLayout *layout, double temperature) {
    TORCH_CHECK(targets.sizes() == inputs.sizes(), "targets ", targets.sizes(),
                " must have the shape of the inputs ", inputs.sizes());
    const torch::Tensor &head = lm_head_ ? lm_head_->weight : embedding_->weight;
    torch::Tensor h = hidden(inputs, nullptr, nullptr, layout);
    if (temperature != 1) {
        h = h / temperature; // the head has no bias: logits / t = (h / t) W^T
    }
    return tokenLosses(h, head, targets.reshape({-1})).view(targets.sizes());
}

void CausalLmImpl::setCheckpointEvery(std::int64_t every) {
    if (every < 0) {
        throw std::invalid_argument("checkpointing must be 0 (off) or a layer interval >= 1");
    }
    checkpoint_every_ = every;
}

std::set<std::string> CausalLmImpl::projectionNames() const {
    std::set<std::string> names;
    for (const auto &[path, projections] : layers_.front()->projectionGroups()) {
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
    for (DecoderLayer &layer : layers_) {
        layer->enableLora(options);
    }
    lora_ = options;
}

std::vector<std::pair<std::string, Projections>> CausalLmImpl::projectionGroups() const {
    std::vector<std::pair<std::string, Projections>> groups;
    const std::string layers = isGpt2(options_) ? "transformer.h." : "model.layers.";
    for (std::size_t index = 0; index < layers_.size(); ++index) {
        const std::string prefix = layers + std::to_string(index) + ".";
        for (auto &[path, projections] : layers_[index]->projectionGroups()) {
            groups.emplace_back(prefix + path, projections);
        }
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
