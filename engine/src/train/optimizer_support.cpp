#include "train/optimizer_support.h"

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
