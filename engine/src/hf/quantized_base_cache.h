// The quantized frozen base of a project, cached next to the project file so a run, a resume or
// an export does not quantize a multi-GB base again: `<project>-cache/quantized-base-<format>-
// <digest>.safetensors` holds every int8/nf4 projection weight (codes, scales, shape) under its
// checkpoint name. It is used only when its metadata names the base's content digest (the
// project's record of model.base), the format and this quantizer's version, and when the
// digest of its tensors matches; anything else is reported and the base quantized again.
#pragma once

#include "quant/base_quantization.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace headroom::models {
class CausalLmImpl;
}

namespace headroom::hf {

using QuantizedWeights = std::vector<std::pair<std::string, models::QuantizedWeight>>;

// Where a project's quantized bases live: empty `folder` or `base_digest` turns the cache off.
struct QuantizedBaseCache {
    std::string folder;
    std::string base_digest;

    bool enabled() const { return !folder.empty() && !base_digest.empty(); }
    std::string path(models::BaseFormat format) const;
};

// The cache folder of a project file ("runs.headroom" -> "runs.headroom-cache").
std::string quantizedBaseCacheFolder(const std::string &project_path);

// The cached weights, or nullopt when there is no cache file (why stays empty) or it cannot
// be used (why says which file and what is wrong with it).
std::optional<QuantizedWeights> readQuantizedBase(const QuantizedBaseCache &cache,
                                                  models::BaseFormat format, std::string *why);

// Whether the weights are exactly the projections `model` (built with deferred projections)
// still waits for, with their shapes; *why names the first difference.
bool coversDeferredProjections(const QuantizedWeights &weights, models::CausalLmImpl &model,
                               std::string *why);

// Writes the model's int8/nf4 projection weights (temporary file, then renamed) and removes
// cache files of other bases. Throws std::runtime_error naming the file when it cannot write.
// Returns the file's path.
std::string writeQuantizedBase(const QuantizedBaseCache &cache, const models::CausalLmImpl &model);

} // namespace headroom::hf
