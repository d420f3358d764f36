#include "models/gpt.h"

#include "compat/attention.h"
#include "models/activation_checkpoint.h"
#include "models/cpu_linear.h"
#include "models/keyed_dropout.h"
#include "models/model_setup.h"
#include "profile/scopes.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

namespace headroom::models {

namespace {

// The LoRA adapters' input dropout sites within a block's stride (models/model_setup.h); an
// expert's two from kExpertLoraSites on (at most 256 experts).
constexpr std::uint64_t kLoraSites = 10;

std::int64_t perLayerParameters(std::int64_t dim) {
    // ln1 2d, qkv 3d^2+3d, proj d^2+d, ln2 2d, fc 4d^2+4d, fc_out 4d^2+d.
    return 12 * dim * dim + 13 * dim;
}

std::int64_t perMoeLayerParameters(std::int64_t dim, const MoeOptions &moe) {
    const std::int64_t hidden = expertHidden(moe, dim);
    const std::int64_t experts = moe.experts();
    // ln1, qkv, proj, ln2; router E*d; per expert fc d*h+h and fc_out h*d+d.
    return 4 * dim * dim + 8 * dim + experts * dim + experts * (2 * dim * hidden + hidden + dim);
}

} // namespace

void validateGptOptions(const GptOptions &options) {
    requirePositiveOption("GPT", options.vocab_size(), "vocab_size");
    requirePositiveOption("GPT", options.seq_len(), "seq_len");
    requirePositiveOption("GPT", options.layers(), "layers");
    requirePositiveOption("GPT", options.heads(), "heads");
    requirePositiveOption("GPT", options.dim(), "dim");
    if (options.dim() % options.heads() != 0) {
        throw std::invalid_argument("GPT option dim (" + std::to_string(options.dim()) +
                                    ") must be divisible by heads (" +
                                    std::to_string(options.heads()) + ")");
    }
    if (!(options.dropout() >= 0.0 && options.dropout() < 1.0)) {
        throw std::invalid_argument("GPT option dropout must be in [0, 1), got " +
                                    std::to_string(options.dropout()));
    }
    validateMoeOptions(options.moe());
    if (options.moe().experts() > 0 && options.moe().every() > options.layers()) {
        throw std::invalid_argument("GPT option moe.every (" +
                                    std::to_string(options.moe().every()) +
                                    ") is larger than layers (" + std::to_string(options.layers()) +
                                    "): no block would be an MoE block");
    }
}

bool isMoeBlock(const GptOptions &options, std::int64_t index) {
    const MoeOptions &moe = options.moe();
    return moe.experts() > 0 && moe.every() >= 1 && index % moe.every() == moe.every() - 1;
}

std::int64_t gptParameterCount(const GptOptions &options) {
    const std::int64_t dim = options.dim();
    std::int64_t blocks = 0;
    for (std::int64_t layer = 0; layer < options.layers(); ++layer) {
        blocks += isMoeBlock(options, layer) ? perMoeLayerParameters(dim, options.moe())
                                             : perLayerParameters(dim);
    }
    return (options.vocab_size() + options.seq_len()) * dim + blocks + 2 * dim;
}

GptOptions gptOptionsForParameterCount(std::int64_t target_params, std::int64_t vocab_size,
                                       std::int64_t seq_len) {
    requirePositiveOption("GPT", target_params, "target parameter count");
    requirePositiveOption("GPT", vocab_size, "vocab_size");
    requirePositiveOption("GPT", seq_len, "seq_len");
    const double target = static_cast<double>(target_params);
    const double embedding_rows = static_cast<double>(vocab_size + seq_len);
    // Solve 12*(d/64)*d^2 + rows*d = target by bisection (monotonic in d).
    double low = 1.0;
    double high = 1.0e6;
    for (int iteration = 0; iteration < 200; ++iteration) {
        const double mid = 0.5 * (low + high);
        const double count = 12.0 * mid * mid * mid / 64.0 + embedding_rows * mid;
        (count < target ? low : high) = mid;
    }
    const double d0 = low;
    const auto floorTo = [&](std::int64_t step) {
        return std::max<std::int64_t>(step, static_cast<std::int64_t>(d0 / step) * step);
    };

    struct Candidate {
        GptOptions options;
        double error = 0;  // |count - target| / target
        double aspect = 0; // |layers - dim/64|
    };
    const auto better = [](const Candidate &a, const Candidate &b) {
        const bool a_close = a.error <= 0.10;
        const bool b_close = b.error <= 0.10;
        if (a_close != b_close) {
            return a_close;
        }
        if (!a_close) {
            return a.error < b.error;
        }
        const bool a_64 = a.options.dim() % 64 == 0;
        const bool b_64 = b.options.dim() % 64 == 0;
        if (a_64 != b_64) {
            return a_64;
        }
        return a.aspect != b.aspect ? a.aspect < b.aspect : a.error < b.error;
    };
    std::optional<Candidate> best;
    for (const std::int64_t dim : {floorTo(64), floorTo(64) + 64, floorTo(32), floorTo(32) + 32}) {
        Candidate candidate{GptOptions(vocab_size, seq_len)};
        candidate.options.dim(dim).heads(dim % 64 == 0 ? dim / 64 : dim / 32).layers(1);
        const double fixed = static_cast<double>(gptParameterCount(candidate.options) -
                                                 perLayerParameters(dim)); // without any layer
        const double layers = std::round((target - fixed) / perLayerParameters(dim));
        candidate.options.layers(std::max<std::int64_t>(1, static_cast<std::int64_t>(layers)));
        candidate.error =
            std::abs(static_cast<double>(gptParameterCount(candidate.options)) - target) / target;
        candidate.aspect = std::abs(static_cast<double>(candidate.options.layers()) -
                                    static_cast<double>(dim) / 64.0);
        if (!best || better(candidate, *best)) {
            best = candidate;
        }
    }
    return best->options;
}

GptBlockImpl::GptBlockImpl(const GptOptions &options, bool moe)
    : heads_(options.heads()), dropout_(options.dropout()), attention_path_(options.attention()),
      layers_(options.layers()), memory_budget_(options.memory_budget()) {
    validateGptOptions(options);
    const std::int64_t dim = options.dim();
    ln1_ = register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
    qkv_ = register_module("qkv", torch::nn::Linear(dim, 3 * dim));
    proj_ = register_module("proj", torch::nn::Linear(dim, dim));
    ln2_ = register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({dim})));
    if (moe) {
        if (options.moe().experts() < 1) {
            throw std::invalid_argument("an MoE block needs GPT option moe.experts >= 1");
        }
        moe_ = register_module("moe", MoeLayer(dim, options.moe()));
    } else {
        fc_ = register_module("fc", torch::nn::Linear(dim, 4 * dim));
        fc_out_ = register_module("fc_out", torch::nn::Linear(4 * dim, dim));
    }
    resetParameters(options.layers());
}

void GptBlockImpl::resetParameters(std::int64_t total_layers) {
    torch::NoGradGuard no_grad;
    const double residual_std = kInitStd / std::sqrt(2.0 * static_cast<double>(total_layers));
    initLayerNorm(ln1_);
    initLinear(qkv_, kInitStd);
    initLinear(proj_, residual_std);
    initLayerNorm(ln2_);
    if (isMoe()) {
        moe_->resetParameters(kInitStd, residual_std);
    } else {
        initLinear(fc_, kInitStd);
        initLinear(fc_out_, residual_std);
    }
}

void GptBlockImpl::setDropoutSite(std::uint64_t site) {
    dropout_site_ = site;
    if (isMoe()) {
        moe_->setJitterSite(site + kRouterJitterSite);
    }
}

std::vector<GptBlockImpl::LoraSite> GptBlockImpl::loraSites() const {
    // Each keeps its place (and so its adapter's dropout site) whether or not the MLP exists.
    std::vector<LoraSite> sites = {{"qkv", "qkv.weight", qkv_},
                                   {"attn_out", "proj.weight", proj_},
                                   {"mlp_in", "fc.weight", fc_},
                                   {"mlp_out", "fc_out.weight", fc_out_}};
    return sites;
}

void GptBlockImpl::enableLora(const LoraOptions &options) {
    validateLoraOptions(options);
    if (loraEnabled()) {
        throw std::invalid_argument("LoRA is already enabled on this GPT block");
    }
    freezeParameters(*this);
    std::uint64_t adapter_site = dropout_site_ + kLoraSites;
    for (const LoraSite &site : loraSites()) {
        if (site.linear && options.targets().count(site.target) != 0) {
            adapters_.emplace(site.target,
                              register_module(std::string("lora_") + site.target,
                                              LoraAdapter(site.linear, options, adapter_site)));
        }
        ++adapter_site;
    }
    if (isMoe()) {
        moe_->enableLora(options, dropout_site_ + kExpertLoraSites);
    }
    lora_enabled_ = true;
}

std::map<std::string, torch::Tensor> GptBlockImpl::mergedLinearWeights() const {
    std::map<std::string, torch::Tensor> merged;
    for (const LoraSite &site : loraSites()) {
        const auto adapter = adapters_.find(site.target);
        if (adapter != adapters_.end()) {
            merged[site.weight_name] = adapter->second->mergedWeight();
        }
    }
    if (isMoe()) {
        for (auto &[name, weight] : moe_->mergedLinearWeights()) {
            merged["moe." + name] = weight;
        }
    }
    return merged;
}

torch::Tensor GptBlockImpl::project(const std::string &target, torch::nn::Linear &linear,
                                    const torch::Tensor &x) {
    if (adapters_.empty() || !adaptersOn()) {
        return cpuLinear(linear, x);
    }
    const auto adapter = adapters_.find(target);
    // The adapter's base(x) + delta(x), with the base through the same GEMM as without LoRA.
    return adapter == adapters_.end() ? cpuLinear(linear, x)
                                      : cpuLinear(linear, x) + adapter->second->delta(x);
}

torch::Tensor GptBlockImpl::dropout(const torch::Tensor &x, std::uint64_t which) {
    // at::dropout returns its input for p = 0 too; skipping it saves a dispatch per call.
    return dropout_ > 0 && is_training() ? keyedDropout(x, dropout_, dropout_site_ + which) : x;
}

torch::Tensor GptBlockImpl::attention(const torch::Tensor &x, std::int64_t batch,
                                      std::int64_t length, const torch::Tensor &mask) {
    const double p = is_training() ? dropout_ : 0.0;
    const std::uint64_t site = dropout_site_ + kAttentionWeightsSite;
    const compat::AttentionShape shape{
        batch,   heads_,        length, x.size(-1) / heads_, p > 0, x.device().is_cpu(),
        layers_, memory_budget_};
    const torch::Tensor attended = compat::causalSelfAttention(
        project("qkv", qkv_, x).view({batch, length, -1}), heads_, p,
        [p, site](const torch::Tensor &weights) { return keyedDropout(weights, p, site); },
        compat::chooseAttentionPath(attention_path_, shape), mask);
    return project("attn_out", proj_, attended); // [B*T, dim]
}

torch::Tensor GptBlockImpl::forward(const torch::Tensor &x, const torch::Tensor &mask) {
    if (isMoe()) {
        return forwardRouted(x, mask).at(0);
    }
    TORCH_CHECK(x.dim() == 3, "GptBlock expects [B, T, dim], got ", x.sizes());
    const std::int64_t batch = x.size(0);
    const std::int64_t length = x.size(1);
    // Work on [B*T, dim] so every Linear is one addmm.
    torch::Tensor h = x.reshape({batch * length, x.size(2)});
    {
        const profile::ModuleScope scope("attention");
        h = h + dropout(attention(ln1_(h), batch, length, mask), kAttentionResidualSite);
    }
    const profile::ModuleScope scope("mlp");
    h = h + dropout(project("mlp_out", fc_out_, torch::gelu(project("mlp_in", fc_, ln2_(h)))),
                    kMlpResidualSite);
    return h.view({batch, length, -1});
}

std::vector<torch::Tensor> GptBlockImpl::forwardRouted(const torch::Tensor &x,
                                                       const torch::Tensor &mask) {
    if (!isMoe()) {
        return {forward(x, mask)};
    }
    TORCH_CHECK(x.dim() == 3, "GptBlock expects [B, T, dim], got ", x.sizes());
    const std::int64_t batch = x.size(0);
    const std::int64_t length = x.size(1);
    torch::Tensor h = x.reshape({batch * length, x.size(2)});
    {
        const profile::ModuleScope scope("attention");
        h = h + dropout(attention(ln1_(h), batch, length, mask), kAttentionResidualSite);
    }
    const profile::ModuleScope scope("moe");
    MoeOutput routed = moe_(ln2_(h).view({batch, length, -1}));
    h = h + dropout(routed.output.view({batch * length, -1}), kMlpResidualSite);
    return {h.view({batch, length, -1}), routed.aux_loss, routed.z_loss, routed.expert_counts,
            routed.dropped};
}

GptImpl::GptImpl(const GptOptions &options) : options_(options) {
    validateGptOptions(options_);
    token_embedding_ = register_module("token_embedding",
                                       torch::nn::Embedding(options_.vocab_size(), options_.dim()));
    position_embedding_ = register_module("position_embedding",
                                          torch::nn::Embedding(options_.seq_len(), options_.dim()));
    blocks_ = register_module("blocks", torch::nn::ModuleList());
    for (std::int64_t layer = 0; layer < options_.layers(); ++layer) {
        typed_blocks_.emplace_back(options_, isMoeBlock(options_, layer));
        typed_blocks_.back()->setDropoutSite(kLayerSiteStride *
                                             static_cast<std::uint64_t>(layer + 1));
        blocks_->push_back(typed_blocks_.back());
    }
    ln_final_ = register_module(
        "ln_final", torch::nn::LayerNorm(torch::nn::LayerNormOptions({options_.dim()})));
    resetParameters();
}

void GptImpl::resetParameters() {
    torch::NoGradGuard no_grad;
    torch::nn::init::normal_(token_embedding_->weight, 0.0, kInitStd);
    torch::nn::init::normal_(position_embedding_->weight, 0.0, kInitStd);
    for (GptBlock &block : typed_blocks_) {
        block->resetParameters(options_.layers());
    }
    initLayerNorm(ln_final_);
}

const GptOptions &GptImpl::options() const {
    return options_;
}

torch::nn::ModuleList GptImpl::blocks() {
    return blocks_;
}

torch::Tensor GptImpl::tokenEmbeddingWeight() const {
    return token_embedding_->weight;
}

void GptImpl::enableLora(const LoraOptions &options) {
    validateLoraOptions(options);
    if (lora_) {
        throw std::invalid_argument("LoRA is already enabled on this GPT");
    }
    freezeParameters(*this);
    for (GptBlock &block : typed_blocks_) {
        block->enableLora(options);
    }
    lora_ = options;
}

std::vector<torch::Tensor> GptImpl::trainableParameters() const {
    return models::trainableParameters(*this);
}

NamedTensors GptImpl::mergedState() const {
    std::map<std::string, torch::Tensor> merged;
    for (std::size_t index = 0; index < typed_blocks_.size(); ++index) {
        const std::string prefix = "blocks." + std::to_string(index) + ".";
        for (auto &[name, weight] : typed_blocks_[index]->mergedLinearWeights()) {
            merged[prefix + name] = weight;
        }
    }
    std::set<std::string> adapter_names;
    for (const auto &item : loraAdapterTensors(*this)) {
        adapter_names.insert(item.first);
    }
    NamedTensors state;
    const auto add = [&](const std::string &name, const torch::Tensor &tensor) {
        if (adapter_names.count(name) != 0) {
            return;
        }
        const auto replacement = merged.find(name);
        state.emplace_back(name,
                           replacement != merged.end() ? replacement->second : tensor.detach());
    };
    for (const auto &item : named_parameters()) {
        add(item.key(), item.value());
    }
    for (const auto &item : named_buffers()) {
        add(item.key(), item.value());
    }
    return state;
}

torch::Tensor GptImpl::hidden(const torch::Tensor &tokens, MoeRouting *routing,
                              const DocumentLayout *layout) {
    TORCH_CHECK(tokens.dim() == 2, "GPT expects tokens [B, T], got ", tokens.sizes());
    TORCH_CHECK(tokens.scalar_type() == torch::kLong, "GPT expects int64 tokens, got ",
                tokens.scalar_type());
    const std::int64_t length = tokens.size(1);
    TORCH_CHECK(length >= 1 && length <= options_.seq_len(), "GPT sequence length ", length,
                " is outside 1..", options_.seq_len(), " (model.seq_len)");
    const bool packed = layout != nullptr && layout->defined();
    TORCH_CHECK(!packed || layout->positions.sizes() == tokens.sizes(), "a document layout ",
                packed ? layout->positions.sizes() : tokens.sizes(), " must match the tokens ",
                tokens.sizes());
    const torch::Tensor mask = packed ? layout->mask : torch::Tensor();
    torch::Tensor x;
    {
        const profile::ModuleScope scope("embeddings");
        // Positions 0..T-1 are the first T rows: a slice, not an index lookup (packed rows
        // look up each document's own positions).
        x = token_embedding_(tokens) + (packed ? position_embedding_(layout->positions)
                                               : position_embedding_->weight.narrow(0, 0, length));
        if (options_.dropout() > 0 && is_training()) {
            x = keyedDropout(x, options_.dropout(), kEmbeddingDropoutSite);
        }
    }
    std::vector<torch::Tensor> aux_losses;
    std::vector<torch::Tensor> z_losses;
    for (std::size_t index = 0; index < typed_blocks_.size(); ++index) {
        GptBlock &block = typed_blocks_[index];
        const bool recompute = checkpoint_every_ > 0 && is_training() &&
                               static_cast<std::int64_t>(index) % checkpoint_every_ == 0;
        // The scope inside the function: a checkpointed block's recomputation in backward is
        // the block's too.
        const auto layer = static_cast<std::int64_t>(index);
        if (!block->isMoe()) {
            const auto run = [&block, layer, mask](const torch::Tensor &input) {
                const profile::ModuleScope scope("blocks", layer);
                return block->forward(input, mask);
            };
            x = recompute ? checkpointed(run, x) : run(x);
            continue;
        }
        const auto run = [&block, layer, mask](const torch::Tensor &input) {
            const profile::ModuleScope scope("blocks", layer);
            return block->forwardRouted(input, mask);
        };
        const std::vector<torch::Tensor> parts = recompute ? checkpointedOutputs(run, x) : run(x);
        x = parts.at(0);
        if (routing != nullptr) {
            aux_losses.push_back(parts.at(1));
            z_losses.push_back(parts.at(2));
            routing->expert_counts.push_back(parts.at(3));
            routing->dropped.push_back(parts.at(4));
        }
    }
    if (routing != nullptr && !aux_losses.empty()) {
        routing->aux_loss = torch::stack(aux_losses).mean();
        routing->z_loss = torch::stack(z_losses).mean();
        routing->assignments = tokens.numel() * options_.moe().top_k();
    }
    const profile::ModuleScope scope("ln_final");
    return ln_final_(x.view({-1, options_.dim()}));
}

void GptImpl::setCheckpointEvery(std::int64_t every) {
    if (every < 0) {
        throw std::invalid_argument("checkpointing must be 0 (off) or a block interval >= 1");
    }
    checkpoint_every_ = every;
}

torch::Tensor GptImpl::forward(const torch::Tensor &tokens) {
    const torch::Tensor h = hidden(tokens);
    const profile::ModuleScope scope("lm_head");
    // Output projection tied to the token embedding: logits = h E^T.
    return cpuLinear(h, token_embedding_->weight)
        .view({tokens.size(0), tokens.size(1), options_.vocab_size()});
}

torch::Tensor GptImpl::forward(const torch::Tensor &tokens, const DocumentLayout &layout) {
    const torch::Tensor h = hidden(tokens, nullptr, &layout);
    const profile::ModuleScope scope("lm_head");
    return cpuLinear(h, token_embedding_->weight)
        .view({tokens.size(0), tokens.size(1), options_.vocab_size()});
}

torch::Tensor GptImpl::loss(const torch::Tensor &inputs, const torch::Tensor &targets) {
    return lossTerms(inputs, targets).loss;
}

torch::Tensor GptImpl::targetLosses(const torch::Tensor &inputs, const torch::Tensor &targets,
                                    const DocumentLayout *layout) {
    TORCH_CHECK(targets.sizes() == inputs.sizes(), "GPT targets ", targets.sizes(),
                " must have the shape of the inputs ", inputs.sizes());
    const torch::Tensor logits =
        cpuLinear(hidden(inputs, nullptr, layout), token_embedding_->weight);
    return torch::nn::functional::cross_entropy(
               logits, targets.reshape({-1}),
               torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone))
        .view(targets.sizes());
}

GptLoss GptImpl::lossTerms(const torch::Tensor &inputs, const torch::Tensor &targets,
                           const DocumentLayout *layout) {
    TORCH_CHECK(targets.sizes() == inputs.sizes(), "GPT targets ", targets.sizes(),
                " must have the shape of the inputs ", inputs.sizes());
    GptLoss result;
    MoeRouting routing;
    const torch::Tensor h = hidden(inputs, &routing, layout);
    const profile::ModuleScope scope("lm_head");
    const torch::Tensor logits = cpuLinear(h, token_embedding_->weight);
    if (!targets.eq(-100).any().item<bool>()) {
        result.loss = torch::nn::functional::cross_entropy(logits, targets.reshape({-1}));
    } else {
        // Rows with fewer targets (prompts, padding, packed documents) weigh as much as the
        // others, so a step cut into other micro-batches (out-of-memory recovery) sums to the
        // same loss; without masked targets this is the plain mean above.
        const torch::Tensor losses =
            torch::nn::functional::cross_entropy(
                logits, targets.reshape({-1}),
                torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone))
                .view(targets.sizes());
        const torch::Tensor counts = targets.ne(-100).sum(1).clamp_min(1).to(losses.scalar_type());
        result.loss = (losses.sum(1) / counts).mean();
    }
    if (!routing.expert_counts.empty()) {
        result.moe = std::move(routing);
    }
    return result;
}

} // namespace headroom::models
