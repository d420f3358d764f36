#include "hf/pretrained_model.h"

#include "hf/checkpoint_layout.h"
#include "hf/hf_error.h"
#include "hf/safetensors_file.h"
#include "hf/stored_dtype.h"
#include "hf/tensor_stream.h"
#include "util/text.h"

#include <ATen/Parallel.h>
#include <c10/util/Half.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

namespace headroom::hf {

namespace {

using util::endsWith;

// Widens stored values to float32 in one parallel pass that also looks for NaN and infinity
// (an exponent of all ones): each byte of the file is read once and each byte of the model
// written once. Returns whether every value was finite.
template <typename Bits, typename Widen>
bool widenChecked(const std::uint8_t *bytes, std::int64_t count, Bits exponent, float *out,
                  Widen widen) {
    const auto *in = reinterpret_cast<const Bits *>(bytes);
    std::atomic<bool> finite{true};
    at::parallel_for(0, count, 1 << 16, [&](std::int64_t begin, std::int64_t end) {
        unsigned bad = 0;
        for (std::int64_t index = begin; index < end; ++index) {
            bad |= static_cast<unsigned>((in[index] & exponent) == exponent);
            out[index] = widen(in[index]);
        }
        if (bad != 0) {
            finite.store(false, std::memory_order_relaxed);
        }
    });
    return finite.load();
}

float floatFromBits(std::uint32_t bits) {
    float value = 0;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

// Copies a stored tensor into a contiguous float32 parameter of its shape; false when a
// value is not finite.
bool copyToFloat(const std::uint8_t *bytes, const std::string &dtype, torch::Tensor &parameter) {
    float *out = parameter.data_ptr<float>();
    const std::int64_t count = parameter.numel();
    if (dtype == "BF16") {
        return widenChecked<std::uint16_t>(bytes, count, 0x7F80, out, [](std::uint16_t bits) {
            return floatFromBits(static_cast<std::uint32_t>(bits) << 16);
        });
    }
    if (dtype == "F16") {
        return widenChecked<std::uint16_t>(bytes, count, 0x7C00, out,
                                           c10::detail::fp16_ieee_to_fp32_value);
    }
    return widenChecked<std::uint32_t>(bytes, count, 0x7F800000, out, floatFromBits);
}

} // namespace

models::CausalLmOptions causalLmOptions(const ArchitectureConfig &config) {
    models::CausalLmOptions options;
    options.family =
        config.family == ModelFamily::Gpt2 ? models::LmFamily::Gpt2 : models::LmFamily::Llama;
    options.vocab_size = config.vocab_size;
    options.dim = config.hidden_size;
    options.layers = config.layers;
    options.heads = config.heads;
    options.kv_heads = config.kv_heads;
    options.head_dim = config.head_dim;
    options.hidden = config.intermediate_size;
    options.max_positions = config.max_positions;
    options.norm_eps = config.norm_eps;
    options.rope.theta = config.rope_theta;
    options.rope.scaling = config.rope_scaling.type;
    options.rope.factor = config.rope_scaling.factor;
    options.rope.low_freq_factor = config.rope_scaling.low_freq_factor;
    options.rope.high_freq_factor = config.rope_scaling.high_freq_factor;
    options.rope.original_max_positions = config.rope_scaling.original_max_positions;
    options.qkv_bias = config.qkv_bias;
    options.o_bias = config.o_bias;
    options.mlp_bias = config.mlp_bias;
    options.tie_embeddings = config.tie_word_embeddings;
    options.exact_gelu = config.activation == "gelu";
    options.embedding_dropout = config.embedding_dropout;
    options.residual_dropout = config.residual_dropout;
    options.attention_dropout = config.attention_dropout;
    options.experts = config.experts;
    options.experts_per_token = config.experts_per_token;
    options.router_jitter = config.router_jitter;
    return options;
}

bool storedTransposed(const ArchitectureConfig &config, const std::string &name) {
    return config.family == ModelFamily::Gpt2 && name.rfind("transformer.h.", 0) == 0 &&
           endsWith(name, ".weight") && name.find("ln_") == std::string::npos;
}

void loadPretrainedWeights(models::CausalLmImpl &model, const ModelFolder &folder,
                           const ArchitectureConfig &config, const LoadProgress &progress,
                           models::BaseFormat base_format, QuantizedWeights *cached) {
    std::vector<SafetensorsFile> files;
    files.reserve(folder.weight_files.size());
    for (const std::string &path : folder.weight_files) {
        files.push_back(SafetensorsFile::open(path));
    }
    const std::map<std::string, LocatedTensor> located = validateCheckpoint(folder, config, files);
    struct Pending {
        std::string name;
        torch::Tensor parameter;
        const LocatedTensor *where;
    };
    std::vector<Pending> pending;
    for (auto &item : model.named_parameters()) {
        const auto found = located.find(item.key());
        if (found == located.end()) {
            throw ModelFolderError(folder.folder + ": the weights have no tensor " + item.key());
        }
        pending.push_back({item.key(), item.value(), &found->second});
    }
    std::set<std::string> from_cache;
    if (cached) {
        for (const auto &item : *cached) {
            from_cache.insert(item.first);
        }
        pending.erase(std::remove_if(pending.begin(), pending.end(),
                                     [&from_cache](const Pending &item) {
                                         return from_cache.count(item.name) != 0;
                                     }),
                      pending.end());
    }
    // In file order: each file is read front to back, as a cold disk likes it.
    std::stable_sort(pending.begin(), pending.end(), [](const Pending &a, const Pending &b) {
        return std::make_pair(a.where->file, a.where->record.begin) <
               std::make_pair(b.where->file, b.where->record.begin);
    });
    // Read with plain large reads on a thread of their own, overlapped with the conversion
    // (hf/tensor_stream.h); the mapping is only used for the headers.
    std::vector<std::string> paths;
    for (const SafetensorsFile &file : files) {
        paths.push_back(file.path());
    }
    std::vector<TensorStream::Range> ranges;
    ranges.reserve(pending.size());
    for (const Pending &item : pending) {
        const TensorRecord &record = item.where->record;
        const SafetensorsFile &file = files[item.where->file];
        ranges.push_back({item.where->file, file.dataOffset() + record.begin,
                          record.end - record.begin, file.data(record)});
    }
    TensorStream stream(std::move(paths), std::move(ranges));
    torch::NoGradGuard no_grad;
    // Deferred projection weights are converted here one after the other: one buffer, faulted
    // in once, instead of a fresh fp32 allocation per weight.
    torch::Tensor staging;
    for (std::size_t index = 0; index < pending.size(); ++index) {
        const std::string &name = pending[index].name;
        // A deferred projection weight (CausalLmOptions::deferred_projections) is converted
        // into a tensor of its own, handed to the model in the base's format and freed.
        const SafetensorsFile &file = files[pending[index].where->file];
        const TensorRecord &record = pending[index].where->record;
        const bool deferred = pending[index].parameter.numel() == 0 && record.numel() > 0;
        const std::uint8_t *bytes = stream.next();
        // from_blob does not copy; nothing writes through it.
        torch::Tensor stored =
            torch::from_blob(const_cast<std::uint8_t *>(bytes), record.shape,
                             torch::TensorOptions().dtype(storedScalarType(record.dtype)));
        if (storedTransposed(config, name)) {
            stored = stored.t();
        }
        // validateCheckpoint checked the shape against config.json.
        torch::Tensor parameter = pending[index].parameter;
        if (deferred) {
            if (!staging.defined() || staging.numel() < record.numel()) {
                staging = torch::Tensor();
                staging = torch::empty({record.numel()}, torch::kFloat);
            }
            parameter = staging.narrow(0, 0, record.numel()).view(stored.sizes());
        }
        if (stored.sizes() != parameter.sizes()) {
            throw ModelFolderError(file.path() + ": tensor " + record.name + " has shape " +
                                   c10::str(record.shape) + ", the model needs " +
                                   c10::str(parameter.sizes()));
        }
        const std::size_t width = record.dtype == "F32" ? 4 : 2;
        const bool direct = !storedTransposed(config, name) &&
                            parameter.scalar_type() == torch::kFloat && parameter.is_contiguous() &&
                            reinterpret_cast<std::uintptr_t>(bytes) % width == 0;
        bool finite = true;
        if (direct) {
            finite = copyToFloat(bytes, record.dtype, parameter);
        } else {
            parameter.copy_(stored);
            finite = torch::isfinite(parameter).all().item<bool>();
        }
        if (!finite) {
            throw ModelFolderError(file.path() + ": tensor " + record.name +
                                   " holds NaN or infinite values");
        }
        if (deferred) {
            model.storeBaseWeights(base_format, name, parameter);
        } else if (base_format != models::BaseFormat::Fp32) {
            model.storeBaseWeights(base_format, name);
        }
        if (progress) {
            progress(index + 1, pending.size());
        }
    }
    if (cached) {
        for (auto &[name, weight] : *cached) {
            if (!model.installQuantizedWeight(name, std::move(weight))) {
                throw ModelFolderError("the quantized-base cache holds " + name +
                                       ", which this model does not have");
            }
        }
        cached->clear();
    }
}

models::CausalLm loadPretrainedModel(const ModelFolder &folder, const LoadProgress &progress,
                                     models::BaseFormat base_format) {
    const ArchitectureConfig config = readArchitectureConfig(folder.config_path);
    models::CausalLmOptions options = causalLmOptions(config);
    options.deferred_projections = base_format != models::BaseFormat::Fp32;
    models::CausalLm model(options);
    loadPretrainedWeights(*model, folder, config, progress, base_format);
    return model;
}

} // namespace headroom::hf
