#include "gguf/gguf_quant_mix.h"

#include "gguf/gguf_writer.h"

#include <algorithm>
#include <cctype>

namespace headroom::gguf {

namespace {

bool endsWith(const std::string &text, const std::string &suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool contains(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}

// llama-quantize's use_more_bits: the first and last eighth of the layers, every third between.
bool useMoreBits(std::int64_t layer, std::int64_t layers) {
    return layer < layers / 8 || layer >= 7 * layers / 8 || (layer - layers / 8) % 3 == 2;
}

std::int64_t layerOf(const std::string &name) {
    if (name.rfind("blk.", 0) != 0) {
        return -1;
    }
    return std::stoll(name.substr(4, name.find('.', 4) - 4));
}

TensorType defaultType(ExportQuant quant) {
    switch (quant) {
    case ExportQuant::F32:
        return TensorType::F32;
    case ExportQuant::F16:
        return TensorType::F16;
    case ExportQuant::BF16:
        return TensorType::BF16;
    case ExportQuant::Q8_0:
        return TensorType::Q8_0;
    case ExportQuant::Q4_0:
        return TensorType::Q4_0;
    case ExportQuant::Q4_K_M:
        return TensorType::Q4_K;
    case ExportQuant::Q5_K_M:
        return TensorType::Q5_K;
    case ExportQuant::Q6_K:
        return TensorType::Q6_K;
    }
    return TensorType::F32;
}

bool quantized(ExportQuant quant) {
    return quant != ExportQuant::F32 && quant != ExportQuant::F16 && quant != ExportQuant::BF16;
}

TensorType mixedType(ExportQuant quant, const std::string &name, std::int64_t row,
                     const ModelShape &shape) {
    const TensorType base = defaultType(quant);
    const bool output =
        name == "output.weight" || (!shape.has_output && name == "token_embd.weight");
    if (output) {
        if (row % blockElements(base) != 0) {
            return TensorType::Q8_0;
        }
        return base == TensorType::Q8_0 ? TensorType::Q8_0 : TensorType::Q6_K;
    }
    const bool k_mix = quant == ExportQuant::Q4_K_M || quant == ExportQuant::Q5_K_M;
    const std::int64_t layer = layerOf(name);
    if (contains(name, "attn_v.weight")) {
        if (shape.experts == 8) {
            return TensorType::Q8_0;
        }
        if (k_mix && useMoreBits(layer, shape.layers)) {
            return TensorType::Q6_K;
        }
    } else if (contains(name, "attn_k.weight")) {
        if (shape.experts == 8) {
            return TensorType::Q8_0;
        }
    } else if (contains(name, "ffn_down")) {
        if (k_mix && useMoreBits(layer, shape.layers)) {
            return TensorType::Q6_K;
        }
    } else if (contains(name, "attn_output.weight")) {
        if (quant == ExportQuant::Q4_K_M && shape.experts == 8) {
            return TensorType::Q5_K;
        }
    } else if (contains(name, "attn_qkv.weight")) {
        if (quant == ExportQuant::Q4_K_M) {
            return TensorType::Q5_K;
        }
        if (quant == ExportQuant::Q5_K_M) {
            return TensorType::Q6_K;
        }
    }
    return base;
}

// llama-quantize's fallback for rows that do not split into the type's blocks.
TensorType fallback(TensorType type, std::int64_t row) {
    if (row % blockElements(type) == 0) {
        return type;
    }
    TensorType smaller = type;
    switch (type) {
    case TensorType::Q4_K:
        smaller = TensorType::Q5_0;
        break;
    case TensorType::Q5_K:
        smaller = TensorType::Q5_1;
        break;
    case TensorType::Q6_K:
        smaller = TensorType::Q8_0;
        break;
    default:
        break;
    }
    return row % blockElements(smaller) == 0 ? smaller : TensorType::F16;
}

} // namespace

ExportQuant parseExportQuant(const std::string &text) {
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (ExportQuant quant : allExportQuants()) {
        if (exportQuantName(quant) == lower) {
            return quant;
        }
    }
    std::string names;
    for (ExportQuant quant : allExportQuants()) {
        names += (names.empty() ? "" : ", ") + exportQuantName(quant);
    }
    throw GgufError("unknown GGUF quantization '" + text + "': expected one of " + names);
}

std::string exportQuantName(ExportQuant quant) {
    switch (quant) {
    case ExportQuant::F32:
        return "f32";
    case ExportQuant::F16:
        return "f16";
    case ExportQuant::BF16:
        return "bf16";
    case ExportQuant::Q8_0:
        return "q8_0";
    case ExportQuant::Q4_0:
        return "q4_0";
    case ExportQuant::Q4_K_M:
        return "q4_k_m";
    case ExportQuant::Q5_K_M:
        return "q5_k_m";
    case ExportQuant::Q6_K:
        return "q6_k";
    }
    return "f32";
}

std::vector<ExportQuant> allExportQuants() {
    return {ExportQuant::F32,  ExportQuant::F16,    ExportQuant::BF16,   ExportQuant::Q8_0,
            ExportQuant::Q4_0, ExportQuant::Q4_K_M, ExportQuant::Q5_K_M, ExportQuant::Q6_K};
}

FileType fileTypeOf(ExportQuant quant) {
    switch (quant) {
    case ExportQuant::F32:
        return FileType::AllF32;
    case ExportQuant::F16:
        return FileType::MostlyF16;
    case ExportQuant::BF16:
        return FileType::MostlyBF16;
    case ExportQuant::Q8_0:
        return FileType::MostlyQ8_0;
    case ExportQuant::Q4_0:
        return FileType::MostlyQ4_0;
    case ExportQuant::Q4_K_M:
        return FileType::MostlyQ4_K_M;
    case ExportQuant::Q5_K_M:
        return FileType::MostlyQ5_K_M;
    case ExportQuant::Q6_K:
        return FileType::MostlyQ6_K;
    }
    return FileType::AllF32;
}

TensorType tensorTypeFor(ExportQuant quant, const std::string &name,
                         const std::vector<std::int64_t> &dims, const ModelShape &shape) {
    const bool keeps_f32 = dims.size() < 2 || endsWith(name, "_norm.weight") ||
                           contains(name, "ffn_gate_inp.weight") || !endsWith(name, "weight");
    if (keeps_f32 || quant == ExportQuant::F32) {
        return TensorType::F32;
    }
    if (!quantized(quant)) {
        return defaultType(quant);
    }
    if (name == "position_embd.weight") {
        return TensorType::F32; // llama-quantize leaves learned positions as converted
    }
    return fallback(mixedType(quant, name, dims[0], shape), dims[0]);
}

} // namespace headroom::gguf
