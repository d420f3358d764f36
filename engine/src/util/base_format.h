// How the frozen base of a LoRA run holds its attention and MLP weights (model.base_dtype),
// without Torch: the planner sizes the formats, quant/base_quantization.h implements them.
#pragma once

#include <cstdint>
#include <string>

namespace headroom {

enum class BaseFormat { Fp32, Bf16, Fp16, Int8, Nf4 };

// "fp32" | "bf16" | "fp16" | "int8" | "nf4"; throws std::invalid_argument listing them.
BaseFormat parseBaseFormat(const std::string &name);
std::string baseFormatName(BaseFormat format);
bool isQuantized(BaseFormat format);
// How compact the format is: 0 for fp32, 1 for bf16/fp16, 2 for int8, 3 for nf4.
int compactness(BaseFormat format);
// Bytes a weight of `in` inputs costs in this format, scales included.
double baseBytesPerWeight(BaseFormat format, std::int64_t in);

constexpr std::int64_t kNf4Block = 64;
constexpr std::int64_t kNf4Group = 256; // block scales per second-level group

} // namespace headroom
