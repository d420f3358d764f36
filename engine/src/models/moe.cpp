#include "models/moe.h"

#include "models/cpu_linear.h"
#include "models/expert_dispatch.h"
#include "models/keyed_dropout.h"
#include "models/model_setup.h"

#include <cmath>
#include <stdexcept>

namespace headroom::models {

namespace {

[[noreturn]] void reject(const std::string &message) {
    throw std::invalid_argument("GPT option moe." + message);
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
    if (!adapter || !adaptersOn()) {
        return cpuLinear(linear, x);
    }
    const double p = adapter->dropoutProbability();
    const torch::Tensor input =
        p > 0 && adapter->is_training()
            ? keyedDropoutRows(x, p, adapter->dropoutSite(), positions, tokens)
            : x;
    return cpuLinear(linear, x) + adapter->deltaWithoutDropout(input);
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
    torch::Tensor input = flat.to(torch::kFloat);
    if (options_.jitter() > 0 && is_training()) {
        input = input *
                keyedUniform(input, 1.0 - options_.jitter(), 1.0 + options_.jitter(), jitter_site_);
    }
    return models::routerLogits(input, router->weight);
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

    const ExpertAssignments assignments = sortAssignments(
        std::get<1>(top), rows, length, experts_count, expertCapacity(options_, length));
    const torch::Tensor output = runExperts(
        flat, assignments, gates,
        [this, tokens](std::int64_t e, const torch::Tensor &inputs, const torch::Tensor &where) {
            return typed_experts_[static_cast<std::size_t>(e)]->forward(inputs, where, tokens);
        });

    MoeOutput result;
    result.output = output.view({rows, length, dim});
    const torch::Tensor shares =
        assignments.group_sizes.t().to(torch::kFloat) / static_cast<double>(length * k);
    const torch::Tensor mean_probability =
        probabilities.view({rows, length, experts_count}).mean(1);
    result.aux_loss =
        (shares * mean_probability).sum(1).mean() * static_cast<double>(experts_count);
    result.z_loss = torch::logsumexp(logits, -1).pow(2).view({rows, length}).mean(1).mean();
    result.expert_counts = assignments.expert_counts;
    result.dropped = torch::scalar_tensor(tokens * k - assignments.kept.size(0), torch::kLong);
    return result;
}

} // namespace headroom::models
