// The in-memory dtype of a floating-point safetensors dtype.
#pragma once

#include <torch/torch.h>

#include <string>

namespace headroom::hf {

// "F16" -> half, "BF16" -> bfloat16, anything else -> float: callers pass only the three
// floating-point dtypes that a checkpoint's validation admits (floatingDtype).
inline torch::ScalarType storedScalarType(const std::string &dtype) {
    if (dtype == "F16") {
        return torch::kHalf;
    }
    return dtype == "BF16" ? torch::kBFloat16 : torch::kFloat;
}

} // namespace headroom::hf
