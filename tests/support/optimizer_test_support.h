#pragma once

// Parameters and deterministic gradients shared by the optimizer tests.

#include <torch/torch.h>

#include <cstddef>
#include <vector>

namespace test_support {

inline std::vector<torch::Tensor> cloneParameters(const std::vector<torch::Tensor> &parameters) {
    std::vector<torch::Tensor> copies;
    for (const torch::Tensor &parameter : parameters) {
        copies.push_back(parameter.detach().clone().requires_grad_(true));
    }
    return copies;
}

// Deterministic gradients for step `step`; parameter `skipped` gets none on even steps (an
// optimizer must leave it alone). Half-precision parameters get fp32 noise cast down.
inline void setGradients(std::vector<torch::Tensor> &parameters, int step, double magnitude,
                         std::size_t skipped) {
    for (std::size_t index = 0; index < parameters.size(); ++index) {
        torch::Tensor &parameter = parameters[index];
        if (index == skipped && step % 2 == 0) {
            parameter.mutable_grad().reset();
            continue;
        }
        torch::manual_seed(100 * step + static_cast<int>(index));
        const bool full_precision =
            parameter.scalar_type() == torch::kFloat || parameter.scalar_type() == torch::kDouble;
        parameter.mutable_grad() = full_precision
                                       ? torch::randn_like(parameter) * magnitude
                                       : (torch::randn_like(parameter, torch::kFloat) * magnitude)
                                             .to(parameter.scalar_type());
    }
}

} // namespace test_support
