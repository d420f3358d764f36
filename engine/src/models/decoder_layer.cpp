// The layers of models/causal_lm.h: attention (GPT-2's fused or the Llama family's grouped-query
// with rotary positions), then a dense MLP or Mixtral's sparse MoE block, each behind a norm and
// a residual.
#include "compat/attention.h"
#include "models/causal_lm.h"
#include "models/keyed_dropout.h"
#include "models/model_setup.h"
#include "profile/scopes.h"

#include <cmath>

namespace headroom::models {

namespace {

// The adapters' dropout sites within a layer's stride (models/model_setup.h): three per expert
// from kExpertLoraSites on, which kMaxSparseExperts keeps below the next layer's sites.
constexpr std::uint64_t kAttentionLoraSites = 10;
constexpr std::uint64_t kMlpLoraSites = 20;
static_assert(kExpertLoraSites + 3 * static_cast<std::uint64_t>(kMaxSparseExperts) < 1000,
              "a layer's sites overlap");

} // namespace

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
    const bool deferred = options_.deferred_projections;
    if (gpt2) {
        mlp_ = register_module("mlp", Projections());
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
    if (options_.experts > 0) {
        moe_ = register_module("block_sparse_moe",
                               SparseMoeBlock(dim, options_.hidden, options_.experts,
                                              options_.experts_per_token, options_.router_jitter,
                                              deferred));
        moe_->setJitterSite(dropout_site_ + kRouterJitterSite);
        return;
    }
    mlp_ = register_module("mlp", Projections());
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
                                       torch::Tensor *values, const torch::Tensor &mask) {
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
    const compat::AttentionShape shape{batch,           heads,
                                       length,          head_dim,
                                       p > 0,           x.device().is_cpu(),
                                       options_.layers, options_.memory_budget};
    const torch::Tensor attended = compat::causalAttention(
        q, k, v, 1.0 / std::sqrt(static_cast<double>(head_dim)), p,
        [p, site](const torch::Tensor &weights) { return keyedDropout(weights, p, site); },
        compat::chooseAttentionPath(options_.attention, shape), mask);
    return attention_->project(
        output, attended.transpose(1, 2).reshape({batch * length, heads * head_dim}));
}

torch::Tensor DecoderLayerImpl::feedForward(const torch::Tensor &h, std::int64_t batch,
                                            SparseMoeOutput *routing) {
    const profile::ModuleScope scope("mlp");
    const torch::Tensor normed = mlp_norm_(h);
    torch::Tensor mlp_out;
    if (moe_) {
        SparseMoeOutput routed = moe_(normed, batch);
        mlp_out = routed.output;
        if (routing != nullptr) {
            *routing = std::move(routed);
        }
    } else if (isGpt2(options_)) {
        mlp_out = mlp_->project("c_proj", torch::gelu(mlp_->project("c_fc", normed),
                                                      options_.exact_gelu ? "none" : "tanh"));
    } else {
        mlp_out = mlp_->project("down_proj", torch::silu(mlp_->project("gate_proj", normed)) *
                                                 mlp_->project("up_proj", normed));
    }
    return h + dropout(mlp_out, options_.residual_dropout, kMlpResidualSite);
}

torch::Tensor DecoderLayerImpl::forward(const torch::Tensor &x, std::int64_t batch,
                                        const RopeTables &rope, torch::Tensor *keys,
                                        torch::Tensor *values, const torch::Tensor &mask) {
    torch::Tensor h;
    {
        const profile::ModuleScope scope("attention");
        h = x + dropout(attend(attention_norm_(x), batch, rope, keys, values, mask),
                        options_.residual_dropout, kAttentionResidualSite);
    }
    return feedForward(h, batch, nullptr);
}

std::vector<torch::Tensor> DecoderLayerImpl::forwardRouted(const torch::Tensor &x,
                                                           std::int64_t batch,
                                                           const RopeTables &rope,
                                                           const torch::Tensor &mask) {
    torch::Tensor h;
    {
        const profile::ModuleScope scope("attention");
        h = x + dropout(attend(attention_norm_(x), batch, rope, nullptr, nullptr, mask),
                        options_.residual_dropout, kAttentionResidualSite);
    }
    SparseMoeOutput routing;
    torch::Tensor out = feedForward(h, batch, &routing);
    if (!moe_) {
        return {out};
    }
    return {out, routing.probability_sums, routing.counts, routing.z_loss};
}

std::vector<std::pair<std::string, Projections>> DecoderLayerImpl::projectionGroups() const {
    std::vector<std::pair<std::string, Projections>> groups = {{attentionName(), attention_}};
    if (!moe_) {
        groups.emplace_back("mlp", mlp_);
        return groups;
    }
    const std::vector<Projections> &experts = moe_->experts();
    for (std::size_t e = 0; e < experts.size(); ++e) {
        groups.emplace_back("block_sparse_moe.experts." + std::to_string(e), experts[e]);
    }
    return groups;
}

void DecoderLayerImpl::enableLora(const LoraOptions &options) {
    attention_->enableLora(options, dropout_site_ + kAttentionLoraSites);
    if (moe_) {
        moe_->enableLora(options, dropout_site_ + kExpertLoraSites);
    } else {
        mlp_->enableLora(options, dropout_site_ + kMlpLoraSites);
    }
}

} // namespace headroom::models
