// The numbers of the GGUF file format (version 3) as llama.cpp's ggml.h and gguf.h define them:
// the value types of the key/value section and the tensor types of the blocks this engine writes.
// Torch-free.
#pragma once

#include <cstdint>
#include <string>

namespace headroom::gguf {

constexpr std::uint32_t kMagic = 0x46554747; // "GGUF" read as a little-endian u32
constexpr std::uint32_t kVersion = 3;
constexpr std::uint32_t kAlignment = 32;

enum class ValueType : std::uint32_t {
    U8 = 0,
    I8 = 1,
    U16 = 2,
    I16 = 3,
    U32 = 4,
    I32 = 5,
    F32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    U64 = 10,
    I64 = 11,
    F64 = 12,
};

// ggml_type ids.
enum class TensorType : std::uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    BF16 = 30,
};

// llama_ftype ids for general.file_type.
enum class FileType : std::uint32_t {
    AllF32 = 0,
    MostlyF16 = 1,
    MostlyQ4_0 = 2,
    MostlyQ8_0 = 7,
    MostlyQ6_K = 18,
    MostlyQ4_K_M = 15,
    MostlyQ5_K_M = 17,
    MostlyBF16 = 32,
};

// Elements per block and bytes per block of a tensor type (1 element, its size for the floats).
std::int64_t blockElements(TensorType type);
std::int64_t blockBytes(TensorType type);
// Bytes of a row of `elements` (a multiple of blockElements).
std::uint64_t rowBytes(TensorType type, std::int64_t elements);
// "q4_K", "f16", ... as ggml names them.
std::string tensorTypeName(TensorType type);

} // namespace headroom::gguf
