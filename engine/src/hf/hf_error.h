#pragma once

#include <headroom/config.h>

#include <cstdint>
#include <string>

namespace headroom::hf {

// A Hugging Face model folder, or one of its files, that cannot be read as asked: the message names
// the file, the tensor or JSON key, and what was expected. An InputError, so the CLI exits with
// code 2.
class ModelFolderError : public InputError {
public:
    using InputError::InputError;
};

// Throws ModelFolderError("<source>: <problem>").
[[noreturn]] inline void failIn(const std::string &source, const std::string &problem) {
    throw ModelFolderError(source + ": " + problem);
}

// Limits on a config.json's sizes, far above any real model or encoder: they keep every product
// of sizes (parameter counts, tensor shapes) well inside 64 bits.
namespace config_limits {
inline constexpr std::int64_t kMaxVocab = 1 << 22;
inline constexpr std::int64_t kMaxLayers = 1024;
inline constexpr std::int64_t kMaxHidden = 65536;
inline constexpr std::int64_t kMaxHeads = 1024;
inline constexpr std::int64_t kMaxIntermediate = 1 << 20;
inline constexpr std::int64_t kMaxPositions = 1 << 24;
inline constexpr std::uint64_t kMaxConfigBytes = 16ULL << 20;
} // namespace config_limits

} // namespace headroom::hf
