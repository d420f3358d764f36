#include "train/optimizer_support.h"

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

} // namespace headroom::train
