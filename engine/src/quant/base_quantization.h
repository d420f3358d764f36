// Frozen base weights stored at 8 or 4 bits, as QLoRA fine-tunes large models on small machines
// (Dettmers et al., 2023): the base of a LoRA run is never updated, so its linear weights can sit
// in memory quantized and be dequantized one at a time inside the forward and backward pass.
//
//   int8  per-output-row absmax: w = code * scale[row], code in [-127, 127]; 1 byte per weight
//         plus one float per row.
//   nf4   4-bit NormalFloat codes (quantiles of a normal distribution) in blocks of 64 weights,
//         each block scaled by its absmax; the block scales are quantized again to 8 bits in
//         groups of 256 (a float offset and step per group): 0.516 bytes per weight in all.
#pragma once

#include "util/base_format.h"

#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <string>

namespace headroom::models {

using headroom::baseBytesPerWeight;
using headroom::BaseFormat;
using headroom::baseFormatName;
using headroom::isQuantized;
using headroom::kNf4Block;
using headroom::kNf4Group;
using headroom::parseBaseFormat;

// The 16 NF4 values, ascending, from -1 to 1 with an exact zero.
const std::array<float, 16> &nf4Values();

// A frozen weight as the quantized linear layer reads it. bf16/fp16 hold the weight itself in
// `codes`; the other fields are for int8 and nf4.
struct QuantizedWeight {
    BaseFormat format = BaseFormat::Nf4;
    std::int64_t out = 0;
    std::int64_t in = 0;
    // int8: int8 [out, in]. nf4: uint8 [blocks, 32]; byte j of a block holds its element j in
    // the low nibble and element j + 32 in the high one (the weight flattened row by row, the
    // last block padded with zeros).
    torch::Tensor codes;
    // int8: float [out], the step of each row. nf4: uint8 [blocks], each block's absmax as a
    // code within its group: absmax = group_offsets[g] + code * group_steps[g].
    torch::Tensor scales;
    torch::Tensor group_offsets; // nf4: float [groups]
    torch::Tensor group_steps;   // nf4: float [groups]

    std::int64_t bytes() const;
};

// weight [out, in], floating point, on the CPU. Throws std::invalid_argument for a weight that
// is not two-dimensional, not finite or a format that is not int8/nf4.
QuantizedWeight quantizeWeight(const torch::Tensor &weight, BaseFormat format);

// Writes the weight into `out` ([out, in], contiguous float/bfloat16/half on the codes'
// device). On the CPU with vectorized kernels (AVX2 where the processor has it), elsewhere with
// tensor operations.
void dequantizeInto(const QuantizedWeight &weight, torch::Tensor &out);
torch::Tensor dequantize(const QuantizedWeight &weight, torch::ScalarType dtype = torch::kFloat);
// The same through tensor operations only (the path off the CPU), for tests.
torch::Tensor dequantizeWithTensorOps(const QuantizedWeight &weight, torch::ScalarType dtype);

} // namespace headroom::models
