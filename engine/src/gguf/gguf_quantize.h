// Rows of float32 values in the block formats llama.cpp reads (ggml-common.h): f32, f16, bf16,
// q8_0, q4_0 and q5_0 (blocks of 32 with one f16 scale), q5_1 (and an f16 minimum), q4_K and q5_K
// (super-blocks of 256: eight sub-blocks of 32 with 6-bit scales and mins), q6_K (sixteen
// sub-blocks of 16 with int8 scales). The quantizers are this engine's own (a least-squares fit per
// sub-block); the layout of the bytes is the published one, so llama.cpp's dequantization reads
// them. Torch-free.
#pragma once

#include "gguf/gguf_format.h"

#include <cstdint>
#include <vector>

namespace headroom::gguf {

std::uint16_t floatToHalf(float value); // IEEE binary16, round to nearest even
float halfToFloat(std::uint16_t bits);
std::uint16_t floatToBfloat16(float value); // round to nearest even, NaN kept quiet
float bfloat16ToFloat(std::uint16_t bits);

// `rows` rows of `row_length` values (a multiple of blockElements(type)) as that type's blocks,
// rowBytes(type, row_length) bytes per row.
std::vector<std::uint8_t> quantizeRows(const float *values, std::int64_t rows,
                                       std::int64_t row_length, TensorType type);
// The same into `out` (rows x rowBytes(type, row_length) bytes): rows are independent, so a
// caller may quantize ranges of them on several threads.
void quantizeRowsInto(const float *values, std::int64_t rows, std::int64_t row_length,
                      TensorType type, std::uint8_t *out);
// The inverse, as ggml's dequantize_row_* computes it.
std::vector<float> dequantizeRows(const std::uint8_t *bytes, std::int64_t rows,
                                  std::int64_t row_length, TensorType type);

} // namespace headroom::gguf
