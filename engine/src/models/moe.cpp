#include "models/moe.h"

#include "compat/autocast.h"
#include "models/keyed_dropout.h"

#include <cmath>
#include <optional>
#include <stdexcept>

namespace headroom::models {

namespace {

[[noreturn]] void reject(const std::string &message) {
    throw std::invalid_argument("GPT option moe." + message);
}

void initLinear(torch::nn::Linear &linear, double std) {
    torch::nn::init::normal_(linear->weight, 0.0, std);
    if (linear->bias.defined()) {
        torch::nn::init::zeros_(linear->bias);
    }
}

} // namespace

void validateMoeOptions(const MoeOptions &options) {
    const std::int64_t experts = options.experts();
    if (experts < 0) {
        reject("experts must be 0 (dense) or more, got " + std::to_string(experts));
    }
    if (experts == 0) {
        return;
    }
    if (options.top_k() < 1 || options.top_k() > experts) {
        reject("top_k must be in 1..experts (" + std::to_string(experts) + "), got " +
               std::to_string(options.top_k()));
    }
    if (!(options.capacity_factor() >= 0.0) || !std::isfinite(options.capacity_factor())) {
        reject("capacity_factor must be 0 (no dropping) or a positive number, got " +
               std::to_string(options.capacity_factor()));
    }
    if (options.every() < 1) {
        reject("every must be at least 1, got " + std::to_string(options.every()));
    }
    if (options.expert_hidden() < 0) {
        reject("expert_hidden must be 0 (4 x dim) or more, got " +
               std::to_string(options.expert_hidden()));
    }
    if (!(options.aux_loss() >= 0.0) || !std::isfinite(options.aux_loss())) {
        reject("aux_loss must be 0 or more, got " + std::to_string(options.aux_loss()));
    }
    if (!(options.z_loss() >= 0.0) || !std::isfinite(options.z_loss())) {
        reject("z_loss must be 0 or more, got " + std::to_string(options.z_loss()));
    }
    if (!(options.jitter() >= 0.0 && options.jitter() < 1.0)) {
        reject("jitter must be in [0, 1), got " + std::to_string(options.jitter()));
    }
}

std::int64_t expertHidden(const MoeOptions &options, std::int64_t dim) {
    return options.expert_hidden() > 0 ? options.expert_hidden() : 4 * dim;
}

std::int64_t expertCapacity(const MoeOptions &options, std::int64_t length) {
    if (options.capacity_factor() <= 0.0) {
        return 0;
    }
    // The reference computes ceil(cf * (T * k) / E) in the same order of double operations.
    const double slots = options.capacity_factor() * static_cast<double>(length * options.top_k());
    return static_cast<std::int64_t>(std::ceil(slots / static_cast<double>(options.experts())));
}

ExpertMlpImpl::ExpertMlpImpl(std::int64_t dim, std::int64_t hidden) {
    fc = register_module("fc", torch::nn::Linear(dim, hidden));
    fc_out = register_module("fc_out", torch::nn::Linear(hidden, dim));
}

void ExpertMlpImpl::enableLora(const LoraOptions &options, std::uint64_t first_site) {
    lora_site_ = first_site;
    if (options.targets().count("experts_in") != 0) {
        lora_in_ = register_module("lora_experts_in", LoraAdapter(fc, options, first_site));
    }
    if (options.targets().count("experts_out") != 0) {
        lora_out_ =
            register_module("lora_experts_out", LoraAdapter(fc_out, options, first_site + 1));
    }
}

std::map<std::string, torch::Tensor> ExpertMlpImpl::mergedLinearWeights() const {
    std::map<std::string, torch::Tensor> merged;
    if (lora_in_) {
        merged["fc.weight"] = lora_in_->mergedWeight();
    }
    if (lora_out_) {
        merged["fc_out.weight"] = lora_out_->mergedWeight();
    }
    return merged;
}

torch::Tensor ExpertMlpImpl::project(torch::nn::Linear &linear, LoraAdapter &adapter,
                                     const torch::Tensor &x, const torch::Tensor &positions,
                                     std::int64_t tokens) {
    if (!adapter) {
        return linear(x);
    }
    const double p = adapter->dropoutProbability();
    const torch::Tensor input =
        p > 0 && adapter->is_training()
            ? keyedDropoutRows(x, p, adapter->dropoutSite(), positions, tokens)
            : x;
    return linear(x) + adapter->deltaWithoutDropout(input);
}

torch::Tensor ExpertMlpImpl::forward(const torch::Tensor &x, const torch::Tensor &positions,
                                     std::int64_t tokens) {
    const torch::Tensor hidden = torch::gelu(project(fc, lora_in_, x, positions, tokens));
    return project(fc_out, lora_out_, hidden, positions, tokens);
}

MoeLayerImpl::MoeLayerImpl(std::int64_t dim, const MoeOptions &options) : options_(options) {
    validateMoeOptions(options_);
    TORCH_CHECK(options_.experts() > 0, "an MoE layer needs at least one expert");
    router = register_module(
        "router", torch::nn::Linear(torch::nn::LinearOptions(dim, options_.experts()).bias(false)));
    experts = register_module("experts", torch::nn::ModuleList());
    const std::int64_t hidden = expertHidden(options_, dim);
    for (std::int64_t e = 0; e < options_.experts(); ++e) {
        typed_experts_.emplace_back(dim, hidden);
        experts->push_back(typed_experts_.back());
    }
}

void MoeLayerImpl::resetParameters(double std, double residual_std) {
    torch::NoGradGuard no_grad;
    initLinear(router, std);
    for (ExpertMlp &expert : typed_experts_) {
        initLinear(expert->fc, std);
        initLinear(expert->fc_out, residual_std);
    }
}

void MoeLayerImpl::enableLora(const LoraOptions &options, std::uint64_t first_site) {
    for (std::size_t e = 0; e < typed_experts_.size(); ++e) {
        typed_experts_[e]->enableLora(options, first_site + 2 * e);
    }
}

std::map<std::string, torch::Tensor> MoeLayerImpl::mergedLinearWeights() const {
    std::map<std::string, torch::Tensor> merged;
    for (std::size_t e = 0; e < typed_experts_.size(); ++e) {
        for (auto &[name, weight] : typed_experts_[e]->mergedLinearWeights()) {
            merged["experts." + std::to_string(e) + "." + name] = weight;
        }
    }
    return merged;
}

torch::Tensor MoeLayerImpl::routerLogits(const torch::Tensor &flat) {
    // Routing decisions are sensitive to rounding: the router runs in fp32 even under
    // autocast (Switch Transformer's selective precision).
    std::optional<compat::ScopedAutocastState> full_precision;
    if (compat::activeAutocastDtype(flat.device().type())) {
        compat::AutocastState off = compat::currentAutocastState();
        off.cpu_enabled = false;
        off.cuda_enabled = false;
        full_precision.emplace(off);
    }
    torch::Tensor input = flat.to(torch::kFloat);
    if (options_.jitter() > 0 && is_training()) {
        input = input *
                keyedUniform(input, 1.0 - options_.jitter(), 1.0 + options_.jitter(), jitter_site_);
    }
    return torch::linear(input, router->weight.to(torch::kFloat));
}

MoeOutput MoeLayerImpl::forward(const torch::Tensor &x) {
    TORCH_CHECK(x.dim() == 3, "MoeLayer expects [B, T, dim], got ", x.sizes());
    const std::int64_t rows = x.size(0);
    const std::int64_t length = x.size(1);
    const std::int64_t dim = x.size(2);
    const std::int64_t tokens = rows * length;
    const std::int64_t experts_count = options_.experts();
    const std::int64_t k = options_.top_k();
    const torch::Tensor flat = x.reshape({tokens, dim});

    const torch::Tensor logits = routerLogits(flat);                // [N, E] fp32
    const torch::Tensor probabilities = torch::softmax(logits, -1); // [N, E]
    const auto top = probabilities.topk(k, -1);
    const torch::Tensor top_probabilities = std::get<0>(top); // [N, k]
    const torch::Tensor gates =
        k == 1 ? top_probabilities : top_probabilities / top_probabilities.sum(-1, true);

    // Assignment a = n * k + slot of token n = row * T + t. Its sort key orders by expert,
    // then row, then slot, then token: each (expert, row) group is contiguous and in GShard's
    // priority order, and each expert's groups are contiguous.
    const torch::TensorOptions index_options =
        torch::TensorOptions(torch::kLong).device(x.device());
    const torch::Tensor expert = std::get<1>(top).reshape({-1});
    const torch::Tensor assignment = torch::arange(tokens * k, index_options);
    const torch::Tensor token = assignment.div(k, "floor");
    const torch::Tensor slot = assignment.remainder(k);
    const torch::Tensor row = token.div(length, "floor");
    const torch::Tensor position = token.remainder(length);
    const torch::Tensor group = expert * rows + row;
    const torch::Tensor order = ((group * k + slot) * length + position).argsort();
    const torch::Tensor group_sizes = torch::bincount(group, {}, experts_count * rows);
    const torch::Tensor group_start = group_sizes.cumsum(0) - group_sizes;

    const std::int64_t capacity = expertCapacity(options_, length);
    torch::Tensor kept = order;
    if (capacity > 0) {
        const torch::Tensor rank =
            assignment - group_start.index_select(0, group.index_select(0, order));
        kept = order.masked_select(rank < capacity);
    }

    // The counts decide the slices: one small copy to the host.
    const torch::Tensor sizes = group_sizes.to(torch::kCPU).view({experts_count, rows});
    const torch::Tensor expert_counts = sizes.sum(1);
    const torch::Tensor kept_counts =
        capacity > 0 ? sizes.clamp_max(capacity).sum(1) : expert_counts;
    const auto *kept_per_expert = kept_counts.data_ptr<std::int64_t>();

    const torch::Tensor kept_token = kept.div(k, "floor");
    const torch::Tensor kept_gate = gates.reshape({-1}).index_select(0, kept);
    const torch::Tensor inputs = flat.index_select(0, kept_token); // [kept, dim], by expert
    torch::Tensor output;
    std::int64_t offset = 0;
    for (std::int64_t e = 0; e < experts_count; ++e) {
        const std::int64_t count = kept_per_expert[e];
        if (count == 0) {
            continue;
        }
        const torch::Tensor where = kept_token.narrow(0, offset, count);
        torch::Tensor y = typed_experts_[static_cast<std::size_t>(e)]->forward(
            inputs.narrow(0, offset, count), where, tokens);
        y = y * kept_gate.narrow(0, offset, count).to(y.scalar_type()).unsqueeze(1);
        if (!output.defined()) {
            output = torch::zeros({tokens, dim}, y.options());
        }
        output.index_add_(0, where, y);
        offset += count;
    }
    if (!output.defined()) {
        output = torch::zeros({tokens, dim}, flat.options());
    }

    MoeOutput result;
    result.output = output.view({rows, length, dim});
    const torch::Tensor shares = group_sizes.view({experts_count, rows}).t().to(torch::kFloat) /
                                 static_cast<double>(length * k);
    const torch::Tensor mean_probability =
        probabilities.view({rows, length, experts_count}).mean(1);
    result.aux_loss =
        (shares * mean_probability).sum(1).mean() * static_cast<double>(experts_count);
    result.z_loss = torch::logsumexp(logits, -1).pow(2).view({rows, length}).mean(1).mean();
    result.expert_counts = expert_counts;
    result.dropped = torch::scalar_tensor(tokens * k - kept.size(0), torch::kLong);
    return result;
}

} // namespace headroom::models
