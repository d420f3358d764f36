#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace headroom::exporting {

// A tensor as raw bytes: torch-free so the writer has no Torch dependency.
struct TensorView {
    std::string name;
    std::string dtype; // safetensors dtype: "F32", "F16", "BF16", "I64", "I32", "U8", ...
    std::vector<std::int64_t> shape;
    const void *data = nullptr;
    std::uint64_t bytes = 0; // must equal product(shape) * sizeof(dtype)
};

// Writes the safetensors format: 8-byte little-endian header length N, N bytes of JSON header
// {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {...}} padded with spaces
// to a multiple of 8, then the raw data in header order. Tensors are sorted by name. Written
// to a temporary name and renamed. Throws std::runtime_error naming the file on I/O failure or
// std::invalid_argument for inconsistent views (duplicate name, byte count mismatch).
void writeSafetensors(const std::string &path, const std::vector<TensorView> &tensors,
                      const std::map<std::string, std::string> &metadata);

// Reads back the header (for tests and `export` verification): name -> (dtype, shape, begin, end).
struct SafetensorsEntry {
    std::string dtype;
    std::vector<std::int64_t> shape;
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
};
std::map<std::string, SafetensorsEntry>
readSafetensorsHeader(const std::string &path,
                      std::map<std::string, std::string> *metadata = nullptr);

} // namespace headroom::exporting
