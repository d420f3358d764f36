// The linear layer of a frozen quantized base (quant/base_quantization.h): x W^T with W
// dequantized into a buffer reused by every layer, in the forward pass and again in the
// backward pass, so only one full-precision weight exists at a time. Gradients flow to the
// input (and on to LoRA adapters and earlier layers), never to W.
#pragma once

#include "quant/base_quantization.h"

#include <torch/torch.h>

namespace headroom::models {

// x [..., in] -> [..., out]. Computes in x's dtype, or in autocast's dtype where autocast is
// on for x's device (as torch::linear would under autocast).
torch::Tensor quantizedLinear(const torch::Tensor &x, const QuantizedWeight &weight);

// Bytes of the reused dequantization buffers this thread holds (the planner counts them).
std::int64_t dequantizationBufferBytes();

} // namespace headroom::models
