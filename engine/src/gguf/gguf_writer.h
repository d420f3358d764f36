// A GGUF v3 file written streaming: the header, the key/values and every tensor's name, dims and
// type first, then the tensors' data one at a time in the order they were listed, each at an
// offset aligned to general.alignment (32). Written to FILE.partial and renamed when complete.
// Little endian. Torch-free.
#pragma once

#include "gguf/gguf_format.h"

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace headroom::gguf {

class GgufError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The key/value section, in the order keys were first set (a key set again keeps its place).
class Metadata {
public:
    using Value = std::variant<std::uint32_t, std::int32_t, float, bool, std::string,
                               std::vector<std::string>, std::vector<std::int32_t>,
                               std::vector<float>, std::uint64_t>;
    struct Entry {
        std::string key;
        Value value;
    };

    void setU32(const std::string &key, std::uint32_t value) { set(key, value); }
    void setU64(const std::string &key, std::uint64_t value) { set(key, value); }
    void setI32(const std::string &key, std::int32_t value) { set(key, value); }
    void setF32(const std::string &key, float value) { set(key, value); }
    void setBool(const std::string &key, bool value) { set(key, value); }
    void setString(const std::string &key, const std::string &value) { set(key, value); }
    void setStrings(const std::string &key, std::vector<std::string> value) {
        set(key, std::move(value));
    }
    void setI32s(const std::string &key, std::vector<std::int32_t> value) {
        set(key, std::move(value));
    }
    void setF32s(const std::string &key, std::vector<float> value) { set(key, std::move(value)); }

    const std::vector<Entry> &entries() const { return entries_; }
    const Value *find(const std::string &key) const;

private:
    void set(const std::string &key, Value value);
    std::vector<Entry> entries_;
};

struct TensorPlan {
    std::string name;
    std::vector<std::int64_t> dims; // innermost (contiguous) first, as GGUF lists them
    TensorType type = TensorType::F32;

    std::int64_t elements() const;
    std::uint64_t bytes() const; // rowBytes(type, dims[0]) x the other dims
};

class FileWriter {
public:
    // Writes everything before the tensor data. Throws GgufError for a duplicate tensor name,
    // an empty name, a dim < 1, or a first dim that is not a multiple of the type's block.
    FileWriter(std::string path, const Metadata &metadata, std::vector<TensorPlan> tensors);
    ~FileWriter();
    FileWriter(const FileWriter &) = delete;
    FileWriter &operator=(const FileWriter &) = delete;

    // The data of the next tensor in plan order: exactly its bytes().
    void writeNextTensor(const void *data, std::uint64_t size);
    // After the last tensor: flushes, checks the stream and moves the file into place.
    void finish();

    const std::vector<TensorPlan> &tensors() const { return tensors_; }
    std::size_t nextTensor() const { return next_; }
    // The size the finished file will have.
    std::uint64_t fileBytes() const { return file_bytes_; }

private:
    void pad();

    std::string path_, temp_path_;
    std::ofstream out_;
    std::vector<TensorPlan> tensors_;
    std::size_t next_ = 0;
    std::uint64_t written_ = 0, data_start_ = 0, file_bytes_ = 0;
    bool finished_ = false;
};

// The bytes of the header, key/values and tensor infos before the (aligned) data section, and
// the whole file's size, for a plan: what FileWriter will write, without writing.
std::uint64_t plannedFileBytes(const Metadata &metadata, const std::vector<TensorPlan> &tensors);

} // namespace headroom::gguf
