#include "gguf/gguf_format.h"

namespace headroom::gguf {

namespace {

constexpr std::int64_t kSuperBlock = 256; // QK_K

} // namespace

std::int64_t blockElements(TensorType type) {
    switch (type) {
    case TensorType::F32:
    case TensorType::F16:
    case TensorType::BF16:
        return 1;
    case TensorType::Q4_0:
    case TensorType::Q5_0:
    case TensorType::Q5_1:
    case TensorType::Q8_0:
        return 32;
    case TensorType::Q4_K:
    case TensorType::Q5_K:
    case TensorType::Q6_K:
        return kSuperBlock;
    }
    return 1;
}

std::int64_t blockBytes(TensorType type) {
    switch (type) {
    case TensorType::F32:
        return 4;
    case TensorType::F16:
    case TensorType::BF16:
        return 2;
    case TensorType::Q4_0:
        return 2 + 16; // half scale, 32 nibbles
    case TensorType::Q5_0:
        return 2 + 4 + 16; // half scale, the fifth bits, nibbles
    case TensorType::Q5_1:
        return 2 + 2 + 4 + 16; // half scale, half minimum, the fifth bits, nibbles
    case TensorType::Q8_0:
        return 2 + 32; // half scale, 32 int8
    case TensorType::Q4_K:
        return 2 + 2 + 12 + 128; // d, dmin, 6-bit scales and mins, nibbles
    case TensorType::Q5_K:
        return 2 + 2 + 12 + 32 + 128; // ... and the fifth bits
    case TensorType::Q6_K:
        return 128 + 64 + 16 + 2; // low nibbles, high 2 bits, int8 scales, d
    }
    return 4;
}

std::uint64_t rowBytes(TensorType type, std::int64_t elements) {
    return static_cast<std::uint64_t>(elements / blockElements(type) * blockBytes(type));
}

std::string tensorTypeName(TensorType type) {
    switch (type) {
    case TensorType::F32:
        return "f32";
    case TensorType::F16:
        return "f16";
    case TensorType::BF16:
        return "bf16";
    case TensorType::Q4_0:
        return "q4_0";
    case TensorType::Q5_0:
        return "q5_0";
    case TensorType::Q5_1:
        return "q5_1";
    case TensorType::Q8_0:
        return "q8_0";
    case TensorType::Q4_K:
        return "q4_K";
    case TensorType::Q5_K:
        return "q5_K";
    case TensorType::Q6_K:
        return "q6_K";
    }
    return "unknown";
}

} // namespace headroom::gguf
