// Linear layers of the GPT on CPU float32 through oneDNN's sgemm (compat/cpu_gemm.h) instead of
// ATen's BLAS path where that is the faster of the two here (compat::preferredCpuGemm): the same
// y = x W^T + b and the same gradients (rounding differs from ATen's in the last bits, as
// between two BLAS libraries).
#pragma once

#include <torch/torch.h>

namespace headroom::models {

// True when cpuLinear would take the oneDNN path for these operands: CPU, float32, x 2-D,
// oneDNN chosen (compat::preferredCpuGemm), autocast off on CPU.
bool cpuGemmLinearApplies(const torch::Tensor &x, const torch::Tensor &weight);

// x [N, in], weight [out, in], bias [out] or undefined -> [N, out]; torch::linear where
// cpuGemmLinearApplies is false. Differentiable in all three.
torch::Tensor cpuLinear(const torch::Tensor &x, const torch::Tensor &weight,
                        const torch::Tensor &bias = {});

inline torch::Tensor cpuLinear(torch::nn::Linear &linear, const torch::Tensor &x) {
    return cpuLinear(x, linear->weight, linear->bias);
}

} // namespace headroom::models
