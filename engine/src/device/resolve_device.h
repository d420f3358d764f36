#pragma once

#include <torch/torch.h>

#include <string>

namespace headroom::device {

// "auto" -> the best available device; refuses devices this build or machine lacks with a
// ConfigError that names what is available.
torch::Device resolveDevice(const std::string &device);
// A rank of a distributed run: device=cuda, and auto on a machine with a GPU, give the rank
// the GPU cuda:LOCAL_RANK (ConfigError when there are fewer); cuda:N, cpu and mps as above.
torch::Device resolveRankDevice(const std::string &device, int local_rank);

} // namespace headroom::device
