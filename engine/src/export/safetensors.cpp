#include "export/safetensors.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <system_error>

namespace headroom::exporting {

namespace {

namespace fs = std::filesystem;

constexpr const char *kMetadataKey = "__metadata__";
// The reference implementation refuses headers above 100 MB; so do we when reading.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

std::uint64_t dtypeSize(const std::string &dtype) {
    static const std::array<std::pair<const char *, std::uint64_t>, 14> sizes = {{
        {"F64", 8},
        {"F32", 4},
        {"F16", 2},
        {"BF16", 2},
        {"F8_E4M3", 1},
        {"F8_E5M2", 1},
        {"I64", 8},
        {"I32", 4},
        {"I16", 2},
        {"I8", 1},
        {"U64", 8},
        {"U32", 4},
        {"U16", 2},
        {"U8", 1},
    }};
    if (dtype == "BOOL") {
        return 1;
    }
    for (const auto &[name, size] : sizes) {
        if (dtype == name) {
            return size;
        }
    }
    return 0;
}

void checkView(const std::string &path, const TensorView &view) {
    const auto problem = [&](const std::string &what) {
        return std::invalid_argument("safetensors '" + path + "': tensor '" + view.name + "' " +
                                     what);
    };
    if (view.name.empty() || view.name == kMetadataKey) {
        throw std::invalid_argument("safetensors '" + path + "': invalid tensor name '" +
                                    view.name + "'");
    }
    const std::uint64_t element_size = dtypeSize(view.dtype);
    if (element_size == 0) {
        throw problem("has an unknown dtype '" + view.dtype + "'");
    }
    std::uint64_t elements = 1;
    for (const std::int64_t dim : view.shape) {
        if (dim < 0) {
            throw problem("has a negative dimension");
        }
        const auto udim = static_cast<std::uint64_t>(dim);
        if (udim != 0 && elements > std::numeric_limits<std::uint64_t>::max() / udim) {
            throw problem("has a shape too large to address");
        }
        elements *= udim;
    }
    if (elements > std::numeric_limits<std::uint64_t>::max() / element_size ||
        elements * element_size != view.bytes) {
        throw problem("has " + std::to_string(view.bytes) + " bytes, its shape and dtype need " +
                      std::to_string(elements * element_size));
    }
    if (view.bytes > 0 && view.data == nullptr) {
        throw problem("has no data");
    }
}

std::array<char, 8> littleEndian(std::uint64_t value) {
    std::array<char, 8> bytes{};
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        bytes[i] = static_cast<char>((value >> (8 * i)) & 0xff);
    }
    return bytes;
}

std::string buildHeader(const std::vector<const TensorView *> &ordered,
                        const std::map<std::string, std::string> &metadata) {
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.empty()) {
        header[kMetadataKey] = metadata;
    }
    std::uint64_t offset = 0;
    for (const TensorView *view : ordered) {
        header[view->name] = {{"dtype", view->dtype},
                              {"shape", view->shape},
                              {"data_offsets", {offset, offset + view->bytes}}};
        offset += view->bytes;
    }
    std::string text = header.dump();
    // Pad with spaces so the data starts 8-byte aligned (the length field is 8 bytes too).
    text.append((8 - text.size() % 8) % 8, ' ');
    return text;
}

} // namespace

void writeSafetensors(const std::string &path, const std::vector<TensorView> &tensors,
                      const std::map<std::string, std::string> &metadata) {
    std::vector<const TensorView *> ordered;
    std::set<std::string> names;
    for (const TensorView &view : tensors) {
        checkView(path, view);
        if (!names.insert(view.name).second) {
            throw std::invalid_argument("safetensors '" + path + "': tensor '" + view.name +
                                        "' appears twice");
        }
        ordered.push_back(&view);
    }
    std::sort(ordered.begin(), ordered.end(),
              [](const TensorView *a, const TensorView *b) { return a->name < b->name; });
    const std::string header = buildHeader(ordered, metadata);

    const std::string temporary = path + ".partial";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (!out) {
            throw std::runtime_error("safetensors '" + path + "': cannot create '" + temporary +
                                     "'");
        }
        const auto length = littleEndian(header.size());
        out.write(length.data(), static_cast<std::streamsize>(length.size()));
        out.write(header.data(), static_cast<std::streamsize>(header.size()));
        for (const TensorView *view : ordered) {
            out.write(static_cast<const char *>(view->data),
                      static_cast<std::streamsize>(view->bytes));
        }
        out.close();
        if (!out) {
            std::error_code ignored;
            fs::remove(temporary, ignored);
            throw std::runtime_error("safetensors '" + path + "': writing '" + temporary +
                                     "' failed (disk full?)");
        }
    }
    std::error_code error;
    fs::rename(temporary, path, error);
    if (error) {
        std::error_code ignored;
        fs::remove(temporary, ignored);
        throw std::runtime_error("safetensors '" + path + "': cannot rename '" + temporary +
                                 "' into place: " + error.message());
    }
}

std::map<std::string, SafetensorsEntry>
readSafetensorsHeader(const std::string &path, std::map<std::string, std::string> *metadata) {
    const auto fail = [&](const std::string &problem) {
        return std::runtime_error("safetensors '" + path + "': " + problem);
    };
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw fail("cannot open the file");
    }
    std::error_code error;
    const std::uint64_t file_size = fs::file_size(path, error);
    std::array<unsigned char, 8> length_bytes{};
    in.read(reinterpret_cast<char *>(length_bytes.data()), length_bytes.size());
    if (error || in.gcount() != 8) {
        throw fail("too short for a safetensors file");
    }
    std::uint64_t header_size = 0;
    for (std::size_t i = 0; i < length_bytes.size(); ++i) {
        header_size |= std::uint64_t{length_bytes[i]} << (8 * i);
    }
    if (header_size > kMaxHeaderBytes || header_size > file_size - 8) {
        throw fail("header length " + std::to_string(header_size) + " does not fit the file");
    }
    std::string text(static_cast<std::size_t>(header_size), '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));

    const nlohmann::json header = nlohmann::json::parse(text, nullptr, false);
    if (header.is_discarded() || !header.is_object()) {
        throw fail("the header is not a JSON object");
    }
    const std::uint64_t data_size = file_size - 8 - header_size;
    std::map<std::string, SafetensorsEntry> entries;
    for (const auto &[name, value] : header.items()) {
        if (name == kMetadataKey) {
            if (!value.is_object()) {
                throw fail("__metadata__ is not an object");
            }
            for (const auto &[key, item] : value.items()) {
                if (!item.is_string()) {
                    throw fail("metadata '" + key + "' is not a string");
                }
                if (metadata) {
                    (*metadata)[key] = item.get<std::string>();
                }
            }
            continue;
        }
        const auto bad = [&](const std::string &what) {
            return fail("tensor '" + name + "' " + what);
        };
        if (!value.is_object() || !value.contains("dtype") || !value["dtype"].is_string() ||
            !value.contains("shape") || !value["shape"].is_array() ||
            !value.contains("data_offsets") || !value["data_offsets"].is_array() ||
            value["data_offsets"].size() != 2) {
            throw bad("needs dtype, shape and data_offsets [begin, end]");
        }
        SafetensorsEntry entry;
        entry.dtype = value["dtype"].get<std::string>();
        for (const auto &dim : value["shape"]) {
            if (!dim.is_number_unsigned()) {
                throw bad("has a shape that is not a list of non-negative integers");
            }
            entry.shape.push_back(dim.get<std::int64_t>());
        }
        const auto &offsets = value["data_offsets"];
        if (!offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned()) {
            throw bad("has data_offsets that are not non-negative integers");
        }
        entry.begin = offsets[0].get<std::uint64_t>();
        entry.end = offsets[1].get<std::uint64_t>();
        if (entry.begin > entry.end || entry.end > data_size) {
            throw bad("has data_offsets [" + std::to_string(entry.begin) + ", " +
                      std::to_string(entry.end) + "] outside the " + std::to_string(data_size) +
                      " data bytes");
        }
        entries.emplace(name, std::move(entry));
    }
    return entries;
}

} // namespace headroom::exporting
