#pragma once

// Pieces every AdamW variant needs in the same form.

#include "optim/optimizer.h"

#include <torch/torch.h>

#include <string>
#include <vector>

namespace headroom::train {

// The parameters once each (a tied weight listed twice is kept once). Throws
// std::invalid_argument "<optimizer>: ..." for an undefined tensor or an empty list.
std::vector<torch::Tensor> uniqueParameters(const std::vector<torch::Tensor> &parameters,
                                            const std::string &optimizer);

// L2 norm of all defined gradients as one vector, measured where they live (one sync).
double gradientNorm(const std::vector<torch::Tensor> &parameters);

// One AdamW update of `parameter` through tensor operations (the path for devices and dtypes
// without a fused kernel), in torch::optim::AdamW's order: decay, moments, bias-corrected step.
// `grad` is already clipped; m and v are fp32 and updated in place; `step` is this
// parameter's update count including this one.
void adamwTensorUpdate(torch::Tensor &parameter, torch::Tensor &m, torch::Tensor &v,
                       const torch::Tensor &grad, std::int64_t step, const AdamWOptions &options);

// archive[key], or std::runtime_error "the <state> has no '<key>' entry".
torch::Tensor readStateEntry(torch::serialize::InputArchive &archive, const std::string &key,
                             const std::string &state);

// Copies `state` into `targets` (what parameterState(index) returned: views, the step count
// last) and returns the step count it carries. Throws std::runtime_error naming the optimizer
// kind and the parameter when the number of tensors or a size differs.
std::int64_t restoreParameterState(const std::vector<torch::Tensor> &targets,
                                   const std::vector<torch::Tensor> &state, const std::string &kind,
                                   std::size_t index);

// The step count as parameterState() carries it.
torch::Tensor stepCountTensor(std::int64_t steps);

} // namespace headroom::train
