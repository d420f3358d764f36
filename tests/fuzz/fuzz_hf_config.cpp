// config.json of a Hugging Face model folder: parsing may only fail with a ModelFolderError;
// a config that parses must give tensor shapes with positive sizes, a parameter count that
// matches them, and canonical names that map to themselves.
#include "hf/architecture_config.h"
#include "hf/checkpoint_layout.h"
#include "hf/hf_error.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string text(reinterpret_cast<const char *>(data), size);
    headroom::hf::ArchitectureConfig config;
    try {
        config = headroom::hf::parseArchitectureConfig(text, "fuzz/config.json");
    } catch (const headroom::hf::ModelFolderError &) {
        return 0;
    }
    if (config.heads % config.kv_heads != 0 ||
        (config.family == headroom::hf::ModelFamily::Llama && config.head_dim % 2 != 0)) {
        __builtin_trap();
    }
    std::int64_t total = 0;
    for (const headroom::hf::ExpectedTensor &tensor : headroom::hf::expectedTensors(config)) {
        std::int64_t count = 1;
        for (const std::int64_t dimension : tensor.shape) {
            if (dimension <= 0) {
                __builtin_trap();
            }
            count *= dimension;
        }
        total += count;
        if (headroom::hf::canonicalTensorName(config, tensor.name) != tensor.name) {
            __builtin_trap();
        }
    }
    if (total != headroom::hf::parameterCount(config)) {
        __builtin_trap();
    }
    return 0;
}
