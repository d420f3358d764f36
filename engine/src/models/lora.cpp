#include "models/lora.h"

#include "models/keyed_dropout.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_set>

namespace headroom::models {

namespace {

thread_local bool adapters_off = false;

} // namespace

ScopedAdaptersOff::ScopedAdaptersOff() : was_off_(adapters_off) {
    adapters_off = true;
}

ScopedAdaptersOff::~ScopedAdaptersOff() {
    adapters_off = was_off_;
}

bool adaptersOn() {
    return !adapters_off;
}

namespace {

std::string validTargetList() {
    std::string list;
    for (const std::string &name : loraTargetNames()) {
        list += (list.empty() ? "" : ", ") + name;
    }
    return list;
}

std::string trim(const std::string &text) {
    const auto begin = text.find_first_not_of(" \t");
    if (begin == std::string::npos) {
        return {};
    }
    const auto end = text.find_last_not_of(" \t");
    return text.substr(begin, end - begin + 1);
}

void requireKnownTargets(const std::set<std::string> &targets) {
    const std::vector<std::string> &valid = loraTargetNames();
    for (const std::string &name : targets) {
        if (std::find(valid.begin(), valid.end(), name) == valid.end()) {
            throw std::invalid_argument("unknown LoRA target '" + name +
                                        "'; valid targets: " + validTargetList());
        }
    }
}

bool isLoraName(const std::string &name) {
    // A component starting with "lora_": at the start or after a dot.
    return name.rfind("lora_", 0) == 0 || name.find(".lora_") != std::string::npos;
}

} // namespace

const std::vector<std::string> &loraTargetNames() {
    static const std::vector<std::string> names = {"qkv",     "attn_out",   "mlp_in",
                                                   "mlp_out", "experts_in", "experts_out"};
    return names;
}

std::set<std::string> parseLoraTargets(const std::string &comma_list) {
    std::set<std::string> targets;
    std::size_t start = 0;
    while (start <= comma_list.size()) {
        const std::size_t comma = comma_list.find(',', start);
        const std::size_t end = comma == std::string::npos ? comma_list.size() : comma;
        const std::string name = trim(comma_list.substr(start, end - start));
        if (!name.empty()) {
            targets.insert(name);
        }
        start = end + 1;
    }
    if (targets.empty()) {
        throw std::invalid_argument("LoRA targets are empty; valid targets: " + validTargetList());
    }
    requireKnownTargets(targets);
    return targets;
}

std::string formatLoraTargets(const std::set<std::string> &targets) {
    std::string list;
    for (const std::string &name : loraTargetNames()) {
        if (targets.count(name) != 0) {
            list += (list.empty() ? "" : ",") + name;
        }
    }
    return list;
}

void validateLoraOptions(const LoraOptions &options) {
    validateLoraHyperparameters(options);
    if (options.targets().empty()) {
        throw std::invalid_argument("LoRA targets are empty; valid targets: " + validTargetList());
    }
    requireKnownTargets(options.targets());
}

void validateLoraHyperparameters(const LoraOptions &options) {
    if (options.rank() < 1) {
        throw std::invalid_argument("LoRA rank must be at least 1, got " +
                                    std::to_string(options.rank()));
    }
    if (!(options.alpha() > 0.0) || !std::isfinite(options.alpha())) {
        throw std::invalid_argument("LoRA alpha must be a positive number, got " +
                                    std::to_string(options.alpha()));
    }
    if (!(options.dropout() >= 0.0 && options.dropout() < 1.0)) {
        throw std::invalid_argument("LoRA dropout must be in [0, 1), got " +
                                    std::to_string(options.dropout()));
    }
}

LoraAdapterImpl::LoraAdapterImpl(torch::nn::Linear base, const LoraOptions &options,
                                 std::uint64_t dropout_site)
    : base_(std::move(base)), scaling_(options.alpha() / static_cast<double>(options.rank())),
      dropout_(options.dropout()), dropout_site_(dropout_site) {
    validateLoraHyperparameters(options);
    // The shape from the options: a frozen base held quantized has no full weight tensor.
    const std::int64_t in = base_->options.in_features();
    const std::int64_t out = base_->options.out_features();
    const torch::TensorOptions like =
        base_->weight.options().dtype(torch::kFloat).requires_grad(false);
    a = register_parameter("a", torch::empty({options.rank(), in}, like));
    b = register_parameter("b", torch::zeros({out, options.rank()}, like));
    torch::NoGradGuard no_grad;
    // What torch.nn.Linear does to its weight; with B = 0 it only decides how A starts.
    torch::nn::init::kaiming_uniform_(a, std::sqrt(5.0));
}

torch::Tensor LoraAdapterImpl::forward(const torch::Tensor &x) {
    return base_(x) + delta(x);
}

torch::Tensor LoraAdapterImpl::delta(const torch::Tensor &x) {
    return deltaWithoutDropout(
        dropout_ > 0 && is_training() ? keyedDropout(x, dropout_, dropout_site_) : x);
}

torch::Tensor LoraAdapterImpl::deltaWithoutDropout(const torch::Tensor &x) {
    return torch::linear(torch::linear(x, a), b) * scaling_;
}

torch::Tensor LoraAdapterImpl::update() const {
    torch::NoGradGuard no_grad;
    return torch::mm(b.detach(), a.detach()) * scaling_;
}

torch::Tensor LoraAdapterImpl::mergedWeight() const {
    torch::NoGradGuard no_grad;
    return base_->weight.detach() + update();
}

std::vector<torch::Tensor> trainableParameters(const torch::nn::Module &module) {
    std::vector<torch::Tensor> trainable;
    std::unordered_set<const void *> seen;
    for (const torch::Tensor &parameter : module.parameters()) {
        if (parameter.requires_grad() && seen.insert(parameter.unsafeGetTensorImpl()).second) {
            trainable.push_back(parameter);
        }
    }
    return trainable;
}

void freezeParameters(torch::nn::Module &module) {
    for (torch::Tensor &parameter : module.parameters()) {
        parameter.set_requires_grad(false);
    }
}

NamedTensors loraAdapterTensors(const torch::nn::Module &module) {
    NamedTensors tensors;
    for (const auto &item : module.named_parameters()) {
        if (isLoraName(item.key())) {
            tensors.emplace_back(item.key(), item.value().detach());
        }
    }
    for (const auto &item : module.named_buffers()) {
        if (isLoraName(item.key())) {
            tensors.emplace_back(item.key(), item.value().detach());
        }
    }
    return tensors;
}

} // namespace headroom::models
