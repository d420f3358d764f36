#pragma once

// Pieces every AdamW variant needs in the same form.

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

// archive[key], or std::runtime_error "the <state> has no '<key>' entry".
torch::Tensor readStateEntry(torch::serialize::InputArchive &archive, const std::string &key,
                             const std::string &state);

} // namespace headroom::train
