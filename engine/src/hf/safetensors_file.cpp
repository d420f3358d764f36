#include "hf/safetensors_file.h"

#include "data/utf8.h"
#include "hf/hf_error.h"
#include "hf/json_file.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <system_error>
#include <tuple>
#include <utility>

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <filesystem>
#include <windows.h>
#else
#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace headroom::hf {

namespace {

using nlohmann::json;

// The limit the reference implementation puts on the JSON header.
constexpr std::uint64_t kMaxHeaderBytes = 100ULL << 20;
constexpr std::uint64_t kInt64Max =
    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

struct Mapping {
    const std::uint8_t *data = nullptr;
    std::uint64_t size = 0;
    void *handle = nullptr;
};

std::string tooShort(std::uint64_t size) {
    return std::to_string(size) + " bytes, shorter than the 8-byte header length "
                                  "a safetensors file starts with";
}

#ifdef _WIN32

std::string lastError() {
    return std::system_category().message(static_cast<int>(GetLastError()));
}

Mapping mapFile(const std::string &path) {
    const std::wstring wide = std::filesystem::u8path(path).wstring();
    HANDLE file = CreateFileW(wide.c_str(), GENERIC_READ, FILE_SHARE_READ, nullptr, OPEN_EXISTING,
                              FILE_ATTRIBUTE_NORMAL, nullptr);
    if (file == INVALID_HANDLE_VALUE) {
        failIn(path, "cannot be opened: " + lastError());
    }
    LARGE_INTEGER size{};
    if (GetFileType(file) != FILE_TYPE_DISK || !GetFileSizeEx(file, &size)) {
        CloseHandle(file);
        failIn(path, "not a regular file");
    }
    if (size.QuadPart < 8) {
        CloseHandle(file);
        failIn(path, tooShort(static_cast<std::uint64_t>(size.QuadPart)));
    }
    HANDLE mapping = CreateFileMappingW(file, nullptr, PAGE_READONLY, 0, 0, nullptr);
    CloseHandle(file); // the mapping object keeps the file open
    if (mapping == nullptr) {
        failIn(path, "cannot be mapped: " + lastError());
    }
    const void *view = MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, 0);
    if (view == nullptr) {
        const std::string problem = lastError();
        CloseHandle(mapping);
        failIn(path, "cannot be mapped: " + problem);
    }
    return {static_cast<const std::uint8_t *>(view), static_cast<std::uint64_t>(size.QuadPart),
            mapping};
}

void unmapFile(const Mapping &mapping) {
    UnmapViewOfFile(mapping.data);
    CloseHandle(static_cast<HANDLE>(mapping.handle));
}

#else

std::string lastError() {
    return std::generic_category().message(errno);
}

Mapping mapFile(const std::string &path) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; regular files ignore it.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        failIn(path, "cannot be opened: " + lastError());
    }
    struct stat info {};
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd);
        failIn(path, "not a regular file");
    }
    const auto size = static_cast<std::uint64_t>(info.st_size);
    if (size < 8 || size > std::numeric_limits<std::size_t>::max()) {
        ::close(fd);
        failIn(path, size < 8 ? tooShort(size) : "too large to map on this system");
    }
    void *view = mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
    const std::string problem = view == MAP_FAILED ? lastError() : std::string();
    ::close(fd); // the mapping keeps the file
    if (view == MAP_FAILED) {
        failIn(path, "cannot be mapped: " + problem);
    }
    return {static_cast<const std::uint8_t *>(view), size, nullptr};
}

void unmapFile(const Mapping &mapping) {
    munmap(const_cast<std::uint8_t *>(mapping.data), static_cast<std::size_t>(mapping.size));
}

#endif

// a * b, or false when it does not fit in 64 bits.
bool multiply(std::uint64_t a, std::uint64_t b, std::uint64_t &product) {
    if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) {
        return false;
    }
    product = a * b;
    return true;
}

std::string dtypeList() {
    return "F64, F32, F16, BF16, F8_E4M3, F8_E5M2, I64, I32, I16, I8, U64, U32, "
           "U16, U8, BOOL";
}

struct Header {
    std::uint64_t data_offset = 0; // 8 + header length
    std::vector<TensorRecord> tensors;
    std::map<std::string, std::string> metadata;
};

json parseHeaderJson(const std::string &path, const char *begin, const char *end) {
    const std::size_t invalid = data::findInvalidUtf8(begin, static_cast<std::size_t>(end - begin));
    if (invalid != static_cast<std::size_t>(end - begin)) {
        failIn(path, "the header is not UTF-8 (byte " + std::to_string(8 + invalid) + ")");
    }
    // The parsed object keeps one value per key; a name given twice must not pass unnoticed.
    std::set<std::string> names;
    std::string repeated;
    json header;
    try {
        header = json::parse(begin, end, [&](int depth, json::parse_event_t event, json &parsed) {
            if (event == json::parse_event_t::key && depth == 1 &&
                !names.insert(parsed.get<std::string>()).second && repeated.empty()) {
                repeated = parsed.get<std::string>();
            }
            return true;
        });
    } catch (const json::exception &error) {
        failIn(path, "the header is not valid JSON: " + jsonErrorText(error));
    }
    if (!header.is_object()) {
        failIn(path, "the header is " + describeJson(header) + ", expected a JSON object");
    }
    if (!repeated.empty()) {
        failIn(path, "the header names " + describeJson(json(repeated)) + " twice");
    }
    return header;
}

std::map<std::string, std::string> readMetadata(const std::string &path, const json &value) {
    std::map<std::string, std::string> metadata;
    if (value.is_null()) {
        return metadata;
    }
    if (!value.is_object()) {
        failIn(path, "__metadata__ is " + describeJson(value) + ", expected an object of strings");
    }
    for (const auto &[key, item] : value.items()) {
        if (!item.is_string()) {
            failIn(path, "__metadata__ key " + describeJson(json(key)) + " is " +
                             describeJson(item) + ", expected a string");
        }
        metadata.emplace(key, item.get<std::string>());
    }
    return metadata;
}

TensorRecord readEntry(const std::string &path, const std::string &name, const json &entry,
                       std::uint64_t data_size) {
    const std::string where = "tensor " + name + ": ";
    if (!entry.is_object()) {
        failIn(path, where + "the entry is " + describeJson(entry) +
                         ", expected an object with dtype, shape and data_offsets");
    }
    for (const char *key : {"dtype", "shape", "data_offsets"}) {
        if (!entry.contains(key)) {
            failIn(path, where + "the entry has no " + key);
        }
    }
    TensorRecord record;
    record.name = name;
    const json &dtype = entry.at("dtype");
    const std::size_t item_size =
        dtype.is_string() ? safetensorsDtypeSize(dtype.get<std::string>()) : 0;
    if (item_size == 0) {
        failIn(path, where + "dtype " + describeJson(dtype) + " is not one of " + dtypeList());
    }
    record.dtype = dtype.get<std::string>();

    const json &shape = entry.at("shape");
    if (!shape.is_array()) {
        failIn(path, where + "shape is " + describeJson(shape) +
                         ", expected an array of non-negative integers");
    }
    std::uint64_t bytes = 1;
    bool overflow = false;
    for (const json &dimension : shape) {
        if (!dimension.is_number_unsigned() || dimension.get<std::uint64_t>() > kInt64Max) {
            failIn(path, where + "shape has the dimension " + describeJson(dimension) +
                             ", expected a non-negative integer below 2^63");
        }
        record.shape.push_back(dimension.get<std::int64_t>());
        overflow = overflow || !multiply(bytes, dimension.get<std::uint64_t>(), bytes);
    }
    if (overflow || !multiply(bytes, item_size, bytes)) {
        failIn(path, where + "shape " + shapeText(record.shape) + " of dtype " + record.dtype +
                         " has more than 2^64 bytes");
    }

    const json &offsets = entry.at("data_offsets");
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
        !offsets[1].is_number_unsigned()) {
        failIn(path, where + "data_offsets is " +
                         (offsets.is_array() ? offsets.dump() : describeJson(offsets)) +
                         ", expected [begin, end] with non-negative integers");
    }
    record.begin = offsets[0].get<std::uint64_t>();
    record.end = offsets[1].get<std::uint64_t>();
    const std::string range =
        "data_offsets [" + std::to_string(record.begin) + ", " + std::to_string(record.end) + "]";
    if (record.begin > record.end) {
        failIn(path, where + range + " end before they begin");
    }
    if (record.end > data_size) {
        failIn(path, where + range + " run past the end of the data section (" +
                         std::to_string(data_size) + " bytes)");
    }
    if (record.end - record.begin != bytes) {
        failIn(path, where + range + " hold " + std::to_string(record.end - record.begin) +
                         " bytes, dtype " + record.dtype + " and shape " + shapeText(record.shape) +
                         " need " + std::to_string(bytes));
    }
    return record;
}

Header readHeader(const std::string &path, const Mapping &mapping) {
    std::uint64_t length = 0;
    for (int i = 7; i >= 0; --i) {
        length = (length << 8) | mapping.data[i];
    }
    if (length == 0) {
        failIn(path, "the header length is 0, expected at least 2 (\"{}\")");
    }
    if (length > kMaxHeaderBytes) {
        failIn(path, "the header length " + std::to_string(length) +
                         " is over the 100 MiB limit (not a safetensors file?)");
    }
    if (length > mapping.size - 8) {
        failIn(path, "the header length " + std::to_string(length) +
                         " runs past the end of the file (" + std::to_string(mapping.size) +
                         " bytes)");
    }
    const auto *text = reinterpret_cast<const char *>(mapping.data + 8);
    const json header = parseHeaderJson(path, text, text + length);
    const std::uint64_t data_size = mapping.size - 8 - length;

    Header result;
    result.data_offset = 8 + length;
    for (const auto &[name, entry] : header.items()) {
        if (name == "__metadata__") {
            result.metadata = readMetadata(path, entry);
        } else {
            result.tensors.push_back(readEntry(path, name, entry, data_size));
        }
    }
    std::sort(result.tensors.begin(), result.tensors.end(),
              [](const TensorRecord &a, const TensorRecord &b) {
                  return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
              });
    // Sorted by begin, a tensor overlaps an earlier one exactly when it begins before the furthest
    // end seen so far. Empty tensors occupy no bytes and overlap nothing.
    const TensorRecord *furthest = nullptr;
    for (const TensorRecord &record : result.tensors) {
        if (record.begin == record.end) {
            continue;
        }
        if (furthest != nullptr && record.begin < furthest->end) {
            failIn(path, "tensors " + furthest->name + " (bytes " +
                             std::to_string(furthest->begin) + " to " +
                             std::to_string(furthest->end) + ") and " + record.name + " (bytes " +
                             std::to_string(record.begin) + " to " + std::to_string(record.end) +
                             ") overlap");
        }
        if (furthest == nullptr || record.end > furthest->end) {
            furthest = &record;
        }
    }
    return result;
}

} // namespace

std::size_t safetensorsDtypeSize(const std::string &dtype) {
    static const std::map<std::string, std::size_t> sizes = {
        {"F64", 8}, {"F32", 4}, {"F16", 2},  {"BF16", 2},    {"I64", 8},
        {"I32", 4}, {"I16", 2}, {"I8", 1},   {"U64", 8},     {"U32", 4},
        {"U16", 2}, {"U8", 1},  {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}};
    const auto found = sizes.find(dtype);
    return found == sizes.end() ? 0 : found->second;
}

std::int64_t TensorRecord::numel() const {
    if (std::any_of(shape.begin(), shape.end(), [](std::int64_t d) { return d < 0; })) {
        throw std::invalid_argument("tensor " + name + " has a negative dimension");
    }
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
        return 0;
    }
    std::int64_t product = 1;
    for (const std::int64_t dimension : shape) {
        if (product > std::numeric_limits<std::int64_t>::max() / dimension) {
            throw std::invalid_argument("tensor " + name + " has more than 2^63 elements");
        }
        product *= dimension;
    }
    return product;
}

SafetensorsFile SafetensorsFile::open(const std::string &path) {
    SafetensorsFile file;
    file.path_ = path;
    const Mapping mapping = mapFile(path);
    file.mapping_ = mapping.data;
    file.mapping_handle_ = mapping.handle;
    file.file_size_ = mapping.size;
    Header header = readHeader(path, mapping); // on error, ~SafetensorsFile unmaps
    file.data_offset_ = header.data_offset;
    file.tensors_ = std::move(header.tensors);
    file.metadata_ = std::move(header.metadata);
    for (std::size_t i = 0; i < file.tensors_.size(); ++i) {
        file.by_name_.emplace(file.tensors_[i].name, i);
    }
    return file;
}

SafetensorsFile::SafetensorsFile(SafetensorsFile &&other) noexcept {
    *this = std::move(other);
}

SafetensorsFile &SafetensorsFile::operator=(SafetensorsFile &&other) noexcept {
    if (this != &other) {
        release();
        path_ = std::move(other.path_);
        file_size_ = std::exchange(other.file_size_, 0);
        mapping_ = std::exchange(other.mapping_, nullptr);
        mapping_handle_ = std::exchange(other.mapping_handle_, nullptr);
        data_offset_ = std::exchange(other.data_offset_, 0);
        tensors_ = std::move(other.tensors_);
        by_name_ = std::move(other.by_name_);
        metadata_ = std::move(other.metadata_);
        other.tensors_.clear();
        other.by_name_.clear();
        other.metadata_.clear();
    }
    return *this;
}

SafetensorsFile::~SafetensorsFile() {
    release();
}

void SafetensorsFile::release() noexcept {
    if (mapping_ != nullptr) {
        unmapFile({mapping_, file_size_, mapping_handle_});
        mapping_ = nullptr;
        mapping_handle_ = nullptr;
    }
}

const TensorRecord *SafetensorsFile::find(const std::string &name) const {
    const auto found = by_name_.find(name);
    return found == by_name_.end() ? nullptr : &tensors_[found->second];
}

const std::uint8_t *SafetensorsFile::data(const TensorRecord &record) const {
    const std::uint64_t data_size = mapping_ == nullptr ? 0 : file_size_ - data_offset_;
    if (mapping_ == nullptr || record.begin > record.end || record.end > data_size) {
        failIn(path_, "tensor " + record.name + ": bytes " + std::to_string(record.begin) + " to " +
                          std::to_string(record.end) + " are not inside the data section (" +
                          std::to_string(data_size) + " bytes)");
    }
    return mapping_ + data_offset_ + record.begin;
}

} // namespace headroom::hf
