// The safetensors reader: model files come from strangers. Opening may only fail with a
// ModelFolderError; a file that opens must describe every tensor consistently and hand out
// pointers whose whole byte range can be read.
#include "fuzz_support.h"
#include "hf/hf_error.h"
#include "hf/safetensors_file.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    static const std::string path = fuzzScratchPath("model.safetensors");
    writeFuzzFile(path, data, size);
    try {
        const headroom::hf::SafetensorsFile file = headroom::hf::SafetensorsFile::open(path);
        if (file.fileSize() != size) {
            __builtin_trap();
        }
        std::uint64_t previous_begin = 0;
        unsigned checksum = 0;
        for (const headroom::hf::TensorRecord &record : file.tensors()) {
            const std::uint64_t bytes = record.end - record.begin;
            if (record.begin > record.end || record.begin < previous_begin ||
                file.find(record.name) != &record ||
                static_cast<std::uint64_t>(record.numel()) *
                        headroom::hf::safetensorsDtypeSize(record.dtype) !=
                    bytes) {
                __builtin_trap();
            }
            previous_begin = record.begin;
            const std::uint8_t *bytes_of = file.data(record);
            for (std::uint64_t i = 0; i < bytes; ++i) {
                checksum += bytes_of[i]; // ASan flags a read outside the mapping
            }
        }
        volatile unsigned sink = checksum;
        (void)sink;
    } catch (const headroom::hf::ModelFolderError &) {
    }
    return 0;
}
