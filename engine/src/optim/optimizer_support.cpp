#include "optim/optimizer_support.h"

#include <cmath>
#include <stdexcept>
#include <unordered_set>

namespace headroom::train {

std::vector<torch::Tensor> uniqueParameters(const std::vector<torch::Tensor> &parameters,
                                            const std::string &optimizer) {
    std::vector<torch::Tensor> unique;
    std::unordered_set<const void *> seen;
    for (const torch::Tensor &parameter : parameters) {
        if (!parameter.defined()) {
            throw std::invalid_argument(optimizer + ": undefined parameter tensor");
        }
        if (seen.insert(parameter.unsafeGetTensorImpl()).second) {
            unique.push_back(parameter);
        }
    }
    if (unique.empty()) {
        throw std::invalid_argument(optimizer + ": no parameters to optimize");
    }
    return unique;
}

double gradientNorm(const std::vector<torch::Tensor> &parameters) {
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> norms;
    for (const torch::Tensor &parameter : parameters) {
        if (parameter.grad().defined()) {
            norms.push_back(parameter.grad().detach().norm().to(torch::kDouble));
        }
    }
    if (norms.empty()) {
        return 0.0;
    }
    return torch::stack(norms).square().sum().sqrt().item<double>();
}

void adamwTensorUpdate(torch::Tensor &parameter, torch::Tensor &m, torch::Tensor &v,
                       const torch::Tensor &grad, std::int64_t step, const AdamWOptions &options) {
    const auto t = static_cast<double>(step);
    const double step_size = options.lr() / (1.0 - std::pow(options.beta1(), t));
    const double bias2_sqrt = std::sqrt(1.0 - std::pow(options.beta2(), t));
    parameter.mul_(1.0 - options.lr() * options.weight_decay());
    m.mul_(options.beta1()).add_(grad, 1.0 - options.beta1());
    v.mul_(options.beta2()).addcmul_(grad, grad, 1.0 - options.beta2());
    const torch::Tensor denom = (v.sqrt() / bias2_sqrt).add_(options.eps());
    // No-ops where the parameter is fp32 too.
    parameter.addcdiv_(m.to(parameter.scalar_type()), denom.to(parameter.scalar_type()),
                       -step_size);
}

torch::Tensor readStateEntry(torch::serialize::InputArchive &archive, const std::string &key,
                             const std::string &state) {
    torch::Tensor value;
    try {
        archive.read(key, value);
    } catch (const c10::Error &) {
        throw std::runtime_error("the " + state + " has no '" + key + "' entry");
    }
    return value;
}

std::int64_t restoreParameterState(const std::vector<torch::Tensor> &targets,
                                   const std::vector<torch::Tensor> &state, const std::string &kind,
                                   std::size_t index) {
    const std::string where = "the " + kind + " state of parameter " + std::to_string(index);
    if (targets.empty() || state.size() != targets.size()) {
        throw std::runtime_error(where + " has " + std::to_string(state.size()) +
                                 " tensors, this optimizer keeps " +
                                 std::to_string(targets.size()));
    }
    for (std::size_t i = 0; i < targets.size(); ++i) {
        if (state[i].numel() != targets[i].numel()) {
            throw std::runtime_error(where + " holds " + std::to_string(state[i].numel()) +
                                     " values in its part " + std::to_string(i) +
                                     ", this model needs " + std::to_string(targets[i].numel()));
        }
    }
    torch::NoGradGuard no_grad;
    for (std::size_t i = 0; i + 1 < targets.size(); ++i) {
        torch::Tensor target = targets[i];
        target.copy_(state[i].reshape(target.sizes()));
    }
    return state.back().to(torch::kCPU).to(torch::kInt64).item<std::int64_t>();
}

torch::Tensor stepCountTensor(std::int64_t steps) {
    return torch::tensor({steps}, torch::kInt64);
}

} // namespace headroom::train
