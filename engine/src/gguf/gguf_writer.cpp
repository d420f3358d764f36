#include "gguf/gguf_writer.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <type_traits>

namespace headroom::gguf {

namespace {

// Little-endian serialization of the header section, independent of the host's byte order.
class HeaderBytes {
public:
    void u32(std::uint32_t value) { little(value, 4); }
    void i32(std::int32_t value) { little(static_cast<std::uint32_t>(value), 4); }
    void u64(std::uint64_t value) { little(value, 8); }
    void f32(float value) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &value, 4);
        little(bits, 4);
    }
    void boolean(bool value) { bytes_.push_back(value ? '\1' : '\0'); }
    void string(const std::string &text) {
        u64(text.size());
        bytes_ += text;
    }
    void type(ValueType value) { u32(static_cast<std::uint32_t>(value)); }
    const std::string &bytes() const { return bytes_; }

private:
    void little(std::uint64_t value, int count) {
        for (int i = 0; i < count; ++i) {
            bytes_.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
        }
    }
    std::string bytes_;
};

void writeValue(HeaderBytes &out, const Metadata::Value &value) {
    std::visit(
        [&out](const auto &v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::uint32_t>) {
                out.type(ValueType::U32);
                out.u32(v);
            } else if constexpr (std::is_same_v<T, std::uint64_t>) {
                out.type(ValueType::U64);
                out.u64(v);
            } else if constexpr (std::is_same_v<T, std::int32_t>) {
                out.type(ValueType::I32);
                out.i32(v);
            } else if constexpr (std::is_same_v<T, float>) {
                out.type(ValueType::F32);
                out.f32(v);
            } else if constexpr (std::is_same_v<T, bool>) {
                out.type(ValueType::Bool);
                out.boolean(v);
            } else if constexpr (std::is_same_v<T, std::string>) {
                out.type(ValueType::String);
                out.string(v);
            } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
                out.type(ValueType::Array);
                out.type(ValueType::String);
                out.u64(v.size());
                for (const std::string &item : v) {
                    out.string(item);
                }
            } else if constexpr (std::is_same_v<T, std::vector<std::int32_t>>) {
                out.type(ValueType::Array);
                out.type(ValueType::I32);
                out.u64(v.size());
                for (std::int32_t item : v) {
                    out.i32(item);
                }
            } else {
                static_assert(std::is_same_v<T, std::vector<float>>);
                out.type(ValueType::Array);
                out.type(ValueType::F32);
                out.u64(v.size());
                for (float item : v) {
                    out.f32(item);
                }
            }
        },
        value);
}

std::uint64_t alignUp(std::uint64_t offset) {
    return (offset + kAlignment - 1) / kAlignment * kAlignment;
}

void checkPlan(const std::vector<TensorPlan> &tensors) {
    std::set<std::string> names;
    for (const TensorPlan &tensor : tensors) {
        if (tensor.name.empty() || !names.insert(tensor.name).second) {
            throw GgufError("GGUF tensor names must be unique and non-empty: '" + tensor.name +
                            "'");
        }
        if (tensor.dims.empty() || tensor.dims.size() > 4) {
            throw GgufError("GGUF tensor " + tensor.name + " has " +
                            std::to_string(tensor.dims.size()) + " dims; 1 to 4 are allowed");
        }
        for (std::int64_t dim : tensor.dims) {
            if (dim < 1) {
                throw GgufError("GGUF tensor " + tensor.name + " has a dim of " +
                                std::to_string(dim));
            }
        }
        if (tensor.dims[0] % blockElements(tensor.type) != 0) {
            throw GgufError("GGUF tensor " + tensor.name + ": rows of " +
                            std::to_string(tensor.dims[0]) + " elements are not a multiple of " +
                            tensorTypeName(tensor.type) + "'s block of " +
                            std::to_string(blockElements(tensor.type)));
        }
    }
}

// Header, key/values and tensor infos; the data section starts at alignUp(its size).
std::string headerBytes(const Metadata &metadata, const std::vector<TensorPlan> &tensors) {
    HeaderBytes out;
    out.u32(kMagic);
    out.u32(kVersion);
    out.u64(tensors.size());
    out.u64(metadata.entries().size());
    for (const Metadata::Entry &entry : metadata.entries()) {
        out.string(entry.key);
        writeValue(out, entry.value);
    }
    std::uint64_t offset = 0;
    for (const TensorPlan &tensor : tensors) {
        out.string(tensor.name);
        out.u32(static_cast<std::uint32_t>(tensor.dims.size()));
        for (std::int64_t dim : tensor.dims) {
            out.u64(static_cast<std::uint64_t>(dim));
        }
        out.u32(static_cast<std::uint32_t>(tensor.type));
        out.u64(offset);
        offset = alignUp(offset + tensor.bytes());
    }
    return out.bytes();
}

} // namespace

const Metadata::Value *Metadata::find(const std::string &key) const {
    for (const Entry &entry : entries_) {
        if (entry.key == key) {
            return &entry.value;
        }
    }
    return nullptr;
}

void Metadata::set(const std::string &key, Value value) {
    for (Entry &entry : entries_) {
        if (entry.key == key) {
            entry.value = std::move(value);
            return;
        }
    }
    entries_.push_back({key, std::move(value)});
}

std::int64_t TensorPlan::elements() const {
    std::int64_t count = 1;
    for (std::int64_t dim : dims) {
        count *= dim;
    }
    return count;
}

std::uint64_t TensorPlan::bytes() const {
    std::uint64_t size = rowBytes(type, dims.at(0));
    for (std::size_t i = 1; i < dims.size(); ++i) {
        size *= static_cast<std::uint64_t>(dims[i]);
    }
    return size;
}

std::uint64_t plannedFileBytes(const Metadata &metadata, const std::vector<TensorPlan> &tensors) {
    checkPlan(tensors);
    std::uint64_t size = alignUp(headerBytes(metadata, tensors).size());
    for (const TensorPlan &tensor : tensors) {
        size = alignUp(size + tensor.bytes());
    }
    return size;
}

FileWriter::FileWriter(std::string path, const Metadata &metadata, std::vector<TensorPlan> tensors)
    : path_(std::move(path)), temp_path_(path_ + ".partial"), tensors_(std::move(tensors)) {
    checkPlan(tensors_);
    file_bytes_ = plannedFileBytes(metadata, tensors_);
    out_.open(temp_path_, std::ios::binary | std::ios::trunc);
    if (!out_) {
        throw GgufError("cannot write " + path_);
    }
    const std::string header = headerBytes(metadata, tensors_);
    out_.write(header.data(), static_cast<std::streamsize>(header.size()));
    written_ = header.size();
    pad();
    data_start_ = written_;
}

FileWriter::~FileWriter() {
    if (!finished_) {
        out_.close();
        std::remove(temp_path_.c_str());
    }
}

void FileWriter::pad() {
    static const char kZeros[kAlignment] = {};
    const std::uint64_t padding = alignUp(written_) - written_;
    out_.write(kZeros, static_cast<std::streamsize>(padding));
    written_ += padding;
}

void FileWriter::writeNextTensor(const void *data, std::uint64_t size) {
    if (next_ >= tensors_.size()) {
        throw GgufError("GGUF writer: more tensors written than planned");
    }
    const TensorPlan &tensor = tensors_[next_];
    if (size != tensor.bytes()) {
        throw GgufError("GGUF writer: " + tensor.name + " has " + std::to_string(size) +
                        " bytes, its plan " + std::to_string(tensor.bytes()));
    }
    out_.write(static_cast<const char *>(data), static_cast<std::streamsize>(size));
    written_ += size;
    pad(); // gguf-py pads after every tensor, the last one too
    ++next_;
    if (!out_) {
        throw GgufError("cannot write " + path_ + " (disk full?)");
    }
}

void FileWriter::finish() {
    if (next_ != tensors_.size()) {
        throw GgufError("GGUF writer: " + std::to_string(tensors_.size() - next_) +
                        " tensors were not written");
    }
    out_.close();
    if (!out_ || written_ != file_bytes_) {
        throw GgufError("cannot write " + path_ + " (disk full?)");
    }
    std::error_code error;
    std::filesystem::rename(temp_path_, path_, error);
    if (error) {
        throw GgufError("cannot move " + temp_path_ + " to " + path_ + ": " + error.message());
    }
    finished_ = true;
}

} // namespace headroom::gguf
