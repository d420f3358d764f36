#include "hf/quantized_base_cache.h"

#include "export/safetensors.h"
#include "hf/safetensors_file.h"
#include "models/causal_lm.h"
#include "util/hashing.h"

#include <filesystem>
#include <map>
#include <stdexcept>
#include <system_error>

namespace headroom::hf {

namespace {

// Bumped whenever quantizeWeight's output for the same input changes: older caches are stale.
constexpr const char *kQuantizerVersion = "1";
constexpr const char *kCacheKind = "headroom-quantized-base";
constexpr const char *kFilePrefix = "quantized-base-";

// The parts of a QuantizedWeight, stored as "<checkpoint name>.<part>".
struct Part {
    const char *suffix;
    torch::Tensor models::QuantizedWeight::*member;
};
constexpr Part kParts[] = {{"codes", &models::QuantizedWeight::codes},
                           {"scales", &models::QuantizedWeight::scales},
                           {"group_offsets", &models::QuantizedWeight::group_offsets},
                           {"group_steps", &models::QuantizedWeight::group_steps}};
constexpr const char *kShapePart = "shape";

std::string safetensorsDtype(torch::ScalarType type) {
    switch (type) {
    case torch::kFloat:
        return "F32";
    case torch::kByte:
        return "U8";
    case torch::kChar:
        return "I8";
    case torch::kLong:
        return "I64";
    default:
        throw std::invalid_argument("quantized-base cache: unexpected tensor type");
    }
}

torch::ScalarType torchType(const std::string &dtype) {
    if (dtype == "F32") {
        return torch::kFloat;
    }
    if (dtype == "U8") {
        return torch::kByte;
    }
    if (dtype == "I8") {
        return torch::kChar;
    }
    if (dtype == "I64") {
        return torch::kLong;
    }
    throw std::invalid_argument("unexpected dtype " + dtype);
}

// Name-ordered checksum of every tensor's bytes, so a flipped or truncated byte is caught.
std::string
tensorsChecksum(const std::map<std::string, std::pair<const void *, std::size_t>> &data) {
    std::string joined;
    for (const auto &[name, bytes] : data) {
        joined += name + ":" + util::checksum64(bytes.first, bytes.second) + ";";
    }
    return util::checksum64(joined.data(), joined.size());
}

std::string splitPart(const std::string &name, std::string *part) {
    const std::size_t dot = name.rfind('.');
    if (dot == std::string::npos) {
        throw std::invalid_argument("tensor " + name + " is not <weight>.<part>");
    }
    *part = name.substr(dot + 1);
    return name.substr(0, dot);
}

QuantizedWeights readWeights(const SafetensorsFile &file, models::BaseFormat format) {
    std::map<std::string, models::QuantizedWeight> weights;
    std::map<std::string, std::pair<const void *, std::size_t>> bytes;
    for (const TensorRecord &record : file.tensors()) {
        std::string part;
        const std::string name = splitPart(record.name, &part);
        const std::uint8_t *data = file.data(record);
        bytes[record.name] = {data, record.end - record.begin};
        models::QuantizedWeight &weight = weights[name];
        weight.format = format;
        const torch::Tensor tensor =
            torch::from_blob(const_cast<std::uint8_t *>(data), record.shape,
                             torch::TensorOptions().dtype(torchType(record.dtype)))
                .clone();
        if (part == kShapePart) {
            if (tensor.numel() != 2 || tensor.scalar_type() != torch::kLong) {
                throw std::invalid_argument("tensor " + record.name + " is not an [out, in] pair");
            }
            weight.out = tensor[0].item<std::int64_t>();
            weight.in = tensor[1].item<std::int64_t>();
            continue;
        }
        bool known = false;
        for (const Part &candidate : kParts) {
            if (part == candidate.suffix) {
                weight.*candidate.member = tensor;
                known = true;
            }
        }
        if (!known) {
            throw std::invalid_argument("unknown tensor " + record.name);
        }
    }
    const auto stored = file.metadata().find("checksum");
    if (stored == file.metadata().end() || stored->second != tensorsChecksum(bytes)) {
        throw std::invalid_argument("its tensors do not match their checksum (a damaged file)");
    }
    QuantizedWeights result;
    for (auto &[name, weight] : weights) {
        const bool nf4 = format == models::BaseFormat::Nf4;
        if (weight.out < 1 || weight.in < 1 || !weight.codes.defined() ||
            !weight.scales.defined() || nf4 != weight.group_offsets.defined() ||
            nf4 != weight.group_steps.defined()) {
            throw std::invalid_argument("weight " + name + " is incomplete");
        }
        result.emplace_back(name, std::move(weight));
    }
    return result;
}

} // namespace

std::string QuantizedBaseCache::path(models::BaseFormat format) const {
    return (std::filesystem::path(folder) / (kFilePrefix + models::baseFormatName(format) + "-" +
                                             base_digest.substr(0, 16) + ".safetensors"))
        .string();
}

std::string quantizedBaseCacheFolder(const std::string &project_path) {
    return project_path.empty() ? std::string() : project_path + "-cache";
}

std::optional<QuantizedWeights> readQuantizedBase(const QuantizedBaseCache &cache,
                                                  models::BaseFormat format, std::string *why) {
    if (!cache.enabled() || !models::isQuantized(format)) {
        return std::nullopt;
    }
    const std::string path = cache.path(format);
    std::error_code error;
    if (!std::filesystem::exists(path, error)) {
        return std::nullopt;
    }
    try {
        const SafetensorsFile file = SafetensorsFile::open(path);
        const auto &metadata = file.metadata();
        const auto value = [&metadata](const char *key) {
            const auto found = metadata.find(key);
            return found == metadata.end() ? std::string() : found->second;
        };
        if (value("kind") != kCacheKind || value("quantizer_version") != kQuantizerVersion) {
            throw std::invalid_argument("written by another version of Headroom");
        }
        if (value("base_digest") != cache.base_digest) {
            throw std::invalid_argument("made from another base (digest " + value("base_digest") +
                                        ")");
        }
        if (value("format") != models::baseFormatName(format)) {
            throw std::invalid_argument("holds format " + value("format"));
        }
        return readWeights(file, format);
    } catch (const std::exception &failure) {
        if (why) {
            const std::string text = failure.what();
            *why = text.rfind(path, 0) == 0 ? text : path + ": " + text; // the reader names it too
        }
        return std::nullopt;
    }
}

bool coversDeferredProjections(const QuantizedWeights &weights, models::CausalLmImpl &model,
                               std::string *why) {
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> deferred;
    for (const auto &module : model.named_modules()) {
        const auto *linear = module.value()->as<torch::nn::LinearImpl>();
        if (linear && linear->weight.defined() && linear->weight.numel() == 0) {
            deferred[module.key() + ".weight"] = {linear->options.out_features(),
                                                  linear->options.in_features()};
        }
    }
    const auto fail = [why](const std::string &text) {
        if (why) {
            *why = text;
        }
        return false;
    };
    if (weights.size() != deferred.size()) {
        return fail("it holds " + std::to_string(weights.size()) + " weights, the model needs " +
                    std::to_string(deferred.size()));
    }
    for (const auto &[name, weight] : weights) {
        const auto found = deferred.find(name);
        if (found == deferred.end()) {
            return fail("the model has no projection " + name);
        }
        if (found->second != std::make_pair(weight.out, weight.in)) {
            return fail(name + " has another shape");
        }
    }
    return true;
}

std::string writeQuantizedBase(const QuantizedBaseCache &cache, const models::CausalLmImpl &model) {
    const QuantizedWeights weights = model.quantizedWeights();
    if (!cache.enabled() || weights.empty()) {
        throw std::invalid_argument("nothing to cache: no int8/nf4 base weights or no project");
    }
    const models::BaseFormat format = weights.front().second.format;
    std::vector<exporting::TensorView> views;
    std::vector<torch::Tensor> keep; // the views point into these
    std::map<std::string, std::pair<const void *, std::size_t>> bytes;
    const auto add = [&](const std::string &name, torch::Tensor tensor) {
        tensor = tensor.contiguous().cpu();
        keep.push_back(tensor);
        exporting::TensorView view;
        view.name = name;
        view.dtype = safetensorsDtype(tensor.scalar_type());
        view.shape.assign(tensor.sizes().begin(), tensor.sizes().end());
        view.data = tensor.data_ptr();
        view.bytes = tensor.nbytes();
        bytes[name] = {view.data, static_cast<std::size_t>(view.bytes)};
        views.push_back(std::move(view));
    };
    for (const auto &[name, weight] : weights) {
        if (weight.format != format) {
            throw std::invalid_argument("the base mixes quantized formats");
        }
        add(name + "." + kShapePart, torch::tensor({weight.out, weight.in}, torch::kLong));
        for (const Part &part : kParts) {
            if ((weight.*part.member).defined()) {
                add(name + "." + part.suffix, weight.*part.member);
            }
        }
    }
    std::error_code error;
    std::filesystem::create_directories(cache.folder, error);
    if (error) {
        throw std::runtime_error("cannot create the cache folder " + cache.folder + ": " +
                                 error.message());
    }
    const std::string path = cache.path(format);
    exporting::writeSafetensors(path, views,
                                {{"kind", kCacheKind},
                                 {"quantizer_version", kQuantizerVersion},
                                 {"base_digest", cache.base_digest},
                                 {"format", models::baseFormatName(format)},
                                 {"checksum", tensorsChecksum(bytes)}});
    // Quantized copies of a base the project no longer uses would only fill the disk.
    const std::string current_digest = cache.base_digest.substr(0, 16);
    for (const auto &entry : std::filesystem::directory_iterator(cache.folder, error)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(kFilePrefix, 0) == 0 && name.find(current_digest) == std::string::npos) {
            std::filesystem::remove(entry.path(), error);
        }
    }
    return path;
}

} // namespace headroom::hf
