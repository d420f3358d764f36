// Linear layers of imported models: built without initialisation (the import overwrites them)
// and applied with a matrix-vector product for single rows (generation).
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace headroom::models {

// A Linear of the given shape whose weight is uninitialised storage; `deferred` leaves the
// weight empty until the import hands it over (ProjectionsImpl::storeBaseWeight).
torch::nn::Linear uninitialisedLinear(std::int64_t in, std::int64_t out, bool bias,
                                      bool deferred = false);

// x [N, in] through weight [out, in] (+ bias).
torch::Tensor applyLinear(const torch::Tensor &x, const torch::Tensor &weight,
                          const torch::Tensor &bias);

} // namespace headroom::models
