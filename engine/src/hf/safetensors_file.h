// A read-only, memory-mapped safetensors file whose header has been checked against the file: every
// tensor's bytes lie inside the data section, match its dtype and shape, and overlap no other
// tensor's. Torch-free; the model loader wraps data() without copying.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace headroom::hf {

// Bytes per element of a safetensors dtype ("F32" → 4); 0 for a dtype this reader does not know.
std::size_t safetensorsDtypeSize(const std::string &dtype);

struct TensorRecord {
    std::string name;
    std::string dtype;
    std::vector<std::int64_t> shape;
    std::uint64_t begin = 0; // byte offsets relative to the start of the data section
    std::uint64_t end = 0;

    // The product of the shape (1 for a scalar). Throws std::invalid_argument for a negative or
    // overflowing shape, which a record from SafetensorsFile never has.
    std::int64_t numel() const;
};

class SafetensorsFile {
public:
    // Maps the file read-only and validates the header. Throws ModelFolderError naming the file
    // and, where there is one, the tensor.
    static SafetensorsFile open(const std::string &path);

    SafetensorsFile(SafetensorsFile &&other) noexcept;
    SafetensorsFile &operator=(SafetensorsFile &&other) noexcept;
    SafetensorsFile(const SafetensorsFile &) = delete;
    SafetensorsFile &operator=(const SafetensorsFile &) = delete;
    ~SafetensorsFile();

    const std::string &path() const { return path_; }
    std::uint64_t fileSize() const { return file_size_; }
    const std::vector<TensorRecord> &tensors() const { return tensors_; } // sorted by begin
    const TensorRecord *find(const std::string &name) const;              // nullptr when absent
    // The tensor's first byte inside the mapping (end - begin bytes are readable). Throws
    // ModelFolderError for a record whose range is not inside this file's data section.
    const std::uint8_t *data(const TensorRecord &record) const;
    // Where the data section starts in the file (8 + the header's length): a record's bytes
    // are at dataOffset() + begin for a reader that does not go through the mapping.
    std::uint64_t dataOffset() const { return data_offset_; }
    // "__metadata__" of the header.
    const std::map<std::string, std::string> &metadata() const { return metadata_; }

private:
    SafetensorsFile() = default;
    void release() noexcept;

    std::string path_;
    std::uint64_t file_size_ = 0;
    const std::uint8_t *mapping_ = nullptr;
    void *mapping_handle_ = nullptr; // Windows: the file-mapping object
    std::uint64_t data_offset_ = 0;  // 8 + header length
    std::vector<TensorRecord> tensors_;
    std::map<std::string, std::size_t> by_name_;
    std::map<std::string, std::string> metadata_;
};

} // namespace headroom::hf
