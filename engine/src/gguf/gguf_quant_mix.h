// The --quant choices of a GGUF export and the tensor type each tensor gets under them, as
// llama-quantize chooses (llama-quant.cpp's llama_tensor_get_type): 1-D tensors, norms, the
// expert router and learned positions stay f32; the output (or the tied token embedding) gets
// q6_K; the _m mixes give more bits to attn_v and ffn_down of the first and last eighth of the
// layers and every third between; rows that are not a multiple of a type's block fall back
// (q4_K -> q5_0, q5_K -> q5_1, q6_K -> q8_0, then f16). Torch-free.
#pragma once

#include "gguf/gguf_format.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::gguf {

enum class ExportQuant { F32, F16, BF16, Q8_0, Q4_0, Q4_K_M, Q5_K_M, Q6_K };

// "f32", "f16", "bf16", "q8_0", "q4_0", "q4_k_m", "q5_k_m", "q6_k" (case-insensitive); throws
// GgufError listing them for anything else.
ExportQuant parseExportQuant(const std::string &text);
std::string exportQuantName(ExportQuant quant);
std::vector<ExportQuant> allExportQuants();
FileType fileTypeOf(ExportQuant quant);

struct ModelShape {
    std::int64_t layers = 0;
    std::int64_t experts = 0; // 0: dense
    bool has_output = true;   // false: the output is the tied token embedding
};

// The type of the tensor `name` (GGUF name) with dims innermost first.
TensorType tensorTypeFor(ExportQuant quant, const std::string &name,
                         const std::vector<std::int64_t> &dims, const ModelShape &shape);

} // namespace headroom::gguf
