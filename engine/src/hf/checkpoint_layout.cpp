#include "hf/checkpoint_layout.h"

#include "hf/hf_error.h"
#include "hf/json_file.h"
#include "util/text.h"

#include <filesystem>

namespace headroom::hf {

namespace {

using util::contains;
using util::endsWith;
using util::startsWith;

namespace fs = std::filesystem;

void addLlamaLayer(const ArchitectureConfig &c, std::int64_t layer,
                   std::vector<ExpectedTensor> &tensors) {
    const std::string prefix = "model.layers." + std::to_string(layer) + ".";
    const std::int64_t q = c.heads * c.head_dim;
    const std::int64_t kv = c.kv_heads * c.head_dim;
    const auto linear = [&](const std::string &name, std::int64_t out, std::int64_t in, bool bias) {
        tensors.push_back({prefix + name + ".weight", {out, in}});
        if (bias) {
            tensors.push_back({prefix + name + ".bias", {out}});
        }
    };
    tensors.push_back({prefix + "input_layernorm.weight", {c.hidden_size}});
    linear("self_attn.q_proj", q, c.hidden_size, c.qkv_bias);
    linear("self_attn.k_proj", kv, c.hidden_size, c.qkv_bias);
    linear("self_attn.v_proj", kv, c.hidden_size, c.qkv_bias);
    linear("self_attn.o_proj", c.hidden_size, q, c.o_bias);
    tensors.push_back({prefix + "post_attention_layernorm.weight", {c.hidden_size}});
    if (c.experts > 0) {
        // Mixtral: the router, then each expert's w1, w2, w3 (transformers' state_dict order).
        linear("block_sparse_moe.gate", c.experts, c.hidden_size, false);
        for (std::int64_t e = 0; e < c.experts; ++e) {
            const std::string expert = "block_sparse_moe.experts." + std::to_string(e) + ".";
            linear(expert + "w1", c.intermediate_size, c.hidden_size, false);
            linear(expert + "w2", c.hidden_size, c.intermediate_size, false);
            linear(expert + "w3", c.intermediate_size, c.hidden_size, false);
        }
        return;
    }
    linear("mlp.gate_proj", c.intermediate_size, c.hidden_size, c.mlp_bias);
    linear("mlp.up_proj", c.intermediate_size, c.hidden_size, c.mlp_bias);
    linear("mlp.down_proj", c.hidden_size, c.intermediate_size, c.mlp_bias);
}

void addGpt2Layer(const ArchitectureConfig &c, std::int64_t layer,
                  std::vector<ExpectedTensor> &tensors) {
    const std::string prefix = "transformer.h." + std::to_string(layer) + ".";
    const std::int64_t d = c.hidden_size;
    // Conv1D stores its weight as [in, out].
    const auto conv = [&](const std::string &name, std::int64_t in, std::int64_t out) {
        tensors.push_back({prefix + name + ".weight", {in, out}});
        tensors.push_back({prefix + name + ".bias", {out}});
    };
    tensors.push_back({prefix + "ln_1.weight", {d}});
    tensors.push_back({prefix + "ln_1.bias", {d}});
    conv("attn.c_attn", d, 3 * d);
    conv("attn.c_proj", d, d);
    tensors.push_back({prefix + "ln_2.weight", {d}});
    tensors.push_back({prefix + "ln_2.bias", {d}});
    conv("mlp.c_fc", d, c.intermediate_size);
    conv("mlp.c_proj", c.intermediate_size, d);
}

// The config.json keys a tensor's shape comes from, with their values, for messages.
std::string shapeSource(const ArchitectureConfig &c, const std::string &name) {
    std::vector<std::string> keys;
    if (c.family == ModelFamily::Gpt2) {
        const std::string embd = keyValue("n_embd", c.hidden_size);
        if (contains(name, "wte") || startsWith(name, "lm_head")) {
            keys = {keyValue("vocab_size", c.vocab_size), embd};
        } else if (contains(name, "wpe")) {
            keys = {keyValue("n_positions", c.max_positions), embd};
        } else if (contains(name, "mlp.")) {
            keys = {embd, keyValue("n_inner", c.intermediate_size)};
        } else {
            keys = {embd};
        }
    } else {
        const std::string hidden = keyValue("hidden_size", c.hidden_size);
        const std::string head_dim = keyValue("head_dim", c.head_dim);
        if (contains(name, "embed_tokens") || startsWith(name, "lm_head")) {
            keys = {keyValue("vocab_size", c.vocab_size), hidden};
        } else if (contains(name, "q_proj") || contains(name, "o_proj")) {
            keys = {hidden, keyValue("num_attention_heads", c.heads), head_dim};
        } else if (contains(name, "k_proj") || contains(name, "v_proj")) {
            keys = {hidden, keyValue("num_key_value_heads", c.kv_heads), head_dim};
        } else if (contains(name, "block_sparse_moe.gate")) {
            keys = {hidden, keyValue("num_local_experts", c.experts)};
        } else if (contains(name, "mlp.") || contains(name, "block_sparse_moe.experts.")) {
            keys = {hidden, keyValue("intermediate_size", c.intermediate_size)};
        } else {
            keys = {hidden};
        }
    }
    std::string text;
    for (const std::string &key : keys) {
        text += (text.empty() ? "" : ", ") + key;
    }
    return text;
}

// Tensors that quantizing tools add beside or instead of a weight: GPTQ and AWQ pack weights
// into qweight/qzeros/scales (g_idx), bitsandbytes stores absmax/quant_map/quant_state and SCB.
// Read as weights they would be garbage; the message says what the folder is.
std::string otherToolsQuantization(const std::string &name, const std::string &dtype) {
    for (const char *suffix : {".qweight", ".qzeros", ".g_idx"}) {
        if (endsWith(name, suffix)) {
            return "GPTQ/AWQ";
        }
    }
    for (const char *marker : {".absmax", ".quant_map", ".quant_state", ".SCB", ".weight_format",
                               "nested_absmax", "nested_quant_map"}) {
        if (name.find(marker) != std::string::npos) {
            return "bitsandbytes";
        }
    }
    if (dtype == "I8" || dtype == "U8" || dtype == "I32" || dtype == "F8_E4M3" ||
        dtype == "F8_E5M2") {
        return dtype + " weights";
    }
    return {};
}

[[noreturn]] void quantizedElsewhere(const std::string &tensor, const std::string &tool) {
    throw ModelFolderError(tensor + " belongs to a model already quantized by another tool (" +
                           tool +
                           "); Headroom imports F32, F16 or BF16 weights and quantizes the "
                           "frozen base itself (model.base_dtype=int8 or nf4): use the "
                           "unquantized original of this model");
}

[[noreturn]] void unexpected(const ArchitectureConfig &config, const std::string &path,
                             const std::string &name) {
    std::string hint;
    if (contains(name, "lora_") || contains(name, "base_layer")) {
        hint = " (a LoRA adapter's weight: merge the adapter into the model first)";
    } else if (config.experts > 0 && contains(name, "mlp.experts")) {
        hint = " (fused expert tensors as newer transformers versions keep them; Headroom reads "
               "the block_sparse_moe.experts.N.w1/w2/w3 layout of Mixtral checkpoints)";
    }
    const std::string experts =
        config.experts > 0 ? " and " + std::to_string(config.experts) + " experts per layer" : "";
    throw ModelFolderError(path + ": unexpected tensor " + name + ": a " + config.architecture +
                           " with " + std::to_string(config.layers) + " layers" + experts +
                           " as config.json describes has no such weight" + hint);
}

} // namespace

std::string keyValue(const std::string &key, std::int64_t value) {
    return key + " " + std::to_string(value);
}

std::string normalPath(const std::string &path) {
    std::error_code error;
    const fs::path absolute = fs::absolute(path, error);
    return (error ? fs::path(path) : absolute).lexically_normal().string();
}

bool floatingDtype(const std::string &dtype) {
    return dtype == "F32" || dtype == "F16" || dtype == "BF16";
}

std::vector<ExpectedTensor> expectedTensors(const ArchitectureConfig &config) {
    std::vector<ExpectedTensor> tensors;
    if (config.family == ModelFamily::Gpt2) {
        tensors.push_back({"transformer.wte.weight", {config.vocab_size, config.hidden_size}});
        tensors.push_back({"transformer.wpe.weight", {config.max_positions, config.hidden_size}});
        for (std::int64_t layer = 0; layer < config.layers; ++layer) {
            addGpt2Layer(config, layer, tensors);
        }
        tensors.push_back({"transformer.ln_f.weight", {config.hidden_size}});
        tensors.push_back({"transformer.ln_f.bias", {config.hidden_size}});
    } else {
        tensors.push_back({"model.embed_tokens.weight", {config.vocab_size, config.hidden_size}});
        for (std::int64_t layer = 0; layer < config.layers; ++layer) {
            addLlamaLayer(config, layer, tensors);
        }
        tensors.push_back({"model.norm.weight", {config.hidden_size}});
    }
    if (!config.tie_word_embeddings) {
        tensors.push_back({"lm_head.weight", {config.vocab_size, config.hidden_size}});
    }
    return tensors;
}

std::optional<std::string> canonicalTensorName(const ArchitectureConfig &config,
                                               const std::string &stored_name) {
    if (config.family == ModelFamily::Gpt2) {
        if (endsWith(stored_name, ".attn.bias") || endsWith(stored_name, ".attn.masked_bias")) {
            return std::nullopt;
        }
        if (startsWith(stored_name, "transformer.") || startsWith(stored_name, "lm_head.")) {
            return stored_name;
        }
        return "transformer." + stored_name;
    }
    if (endsWith(stored_name, ".rotary_emb.inv_freq")) {
        return std::nullopt;
    }
    if (startsWith(stored_name, "model.") || startsWith(stored_name, "lm_head.")) {
        return stored_name;
    }
    return "model." + stored_name;
}

std::map<std::string, LocatedTensor> validateCheckpoint(const ModelFolder &folder,
                                                        const ArchitectureConfig &config,
                                                        const std::vector<SafetensorsFile> &files) {
    const std::vector<ExpectedTensor> expected = expectedTensors(config);
    std::map<std::string, const ExpectedTensor *> by_name;
    for (const ExpectedTensor &tensor : expected) {
        by_name.emplace(tensor.name, &tensor);
    }
    const std::string config_name = folder.config_path.empty()
                                        ? "config.json"
                                        : fs::path(folder.config_path).filename().string();
    const std::string index_name = "model.safetensors.index.json";

    std::map<std::string, LocatedTensor> located;
    for (std::size_t file = 0; file < files.size(); ++file) {
        const std::string &path = files[file].path();
        for (const TensorRecord &record : files[file].tensors()) {
            const std::optional<std::string> canonical = canonicalTensorName(config, record.name);
            if (!canonical) {
                continue;
            }
            const std::string tensor = path + ": tensor " + record.name;
            const auto wanted = by_name.find(*canonical);
            const bool tied_head = wanted == by_name.end() && config.tie_word_embeddings &&
                                   *canonical == "lm_head.weight";
            const std::string tool = otherToolsQuantization(record.name, record.dtype);
            if (!tool.empty()) {
                quantizedElsewhere(tensor, tool);
            }
            if (wanted == by_name.end() && !tied_head) {
                unexpected(config, path, record.name);
            }
            if (!floatingDtype(record.dtype)) {
                throw ModelFolderError(tensor + " has dtype " + record.dtype +
                                       "; supported dtypes: F32, F16, BF16");
            }
            // A tied model may store its output layer anyway; the embedding serves as both.
            const std::vector<std::int64_t> &shape =
                tied_head ? expected.front().shape : wanted->second->shape;
            if (record.shape != shape) {
                throw ModelFolderError(
                    tensor + " has shape " + shapeText(record.shape) + ", " + config_name + " (" +
                    shapeSource(config, *canonical) + ") needs " + shapeText(shape) +
                    (tied_head ? " (tie_word_embeddings: the embedding's shape)" : ""));
            }
            if (tied_head) {
                continue;
            }
            const auto [previous, inserted] =
                located.emplace(*canonical, LocatedTensor{file, record});
            if (!inserted) {
                throw ModelFolderError("tensor " + *canonical + " is stored twice: as " +
                                       previous->second.record.name + " in " +
                                       files[previous->second.file].path() + " and as " +
                                       record.name + " in " + path);
            }
        }
    }
    // After the loop, so that a tensor stored twice is reported as such, whatever the index says.
    for (const auto &[name, tensor] : located) {
        if (folder.index_weight_map.empty()) {
            break;
        }
        const std::string &path = files[tensor.file].path();
        const std::string where = path + ": tensor " + tensor.record.name;
        const auto listed = folder.index_weight_map.find(tensor.record.name);
        if (listed == folder.index_weight_map.end()) {
            throw ModelFolderError(where + " is not listed in " + index_name);
        }
        if (normalPath(listed->second) != normalPath(path)) {
            throw ModelFolderError(where + " is in this file, but " + index_name + " puts it in " +
                                   listed->second);
        }
    }

    std::vector<const ExpectedTensor *> missing;
    for (const ExpectedTensor &tensor : expected) {
        if (located.count(tensor.name) == 0) {
            missing.push_back(&tensor);
        }
    }
    if (!missing.empty()) {
        std::string list;
        for (std::size_t i = 0; i < missing.size() && i < 5; ++i) {
            list += (i == 0 ? "" : ", ") + missing[i]->name + " " + shapeText(missing[i]->shape);
        }
        if (missing.size() > 5) {
            list += " and " + std::to_string(missing.size() - 5) + " more";
        }
        std::string read;
        for (const SafetensorsFile &file : files) {
            read += (read.empty() ? "" : ", ") + fs::path(file.path()).filename().string();
        }
        throw ModelFolderError(
            folder.folder + ": the weights (" + (read.empty() ? std::string("no files") : read) +
            ") lack " + std::to_string(missing.size()) + " tensor" +
            (missing.size() == 1 ? "" : "s") + " that " + config_name + " needs: " + list);
    }
    return located;
}

std::int64_t parameterCount(const ArchitectureConfig &config) {
    std::int64_t total = 0;
    for (const ExpectedTensor &tensor : expectedTensors(config)) {
        std::int64_t count = 1;
        for (const std::int64_t dimension : tensor.shape) {
            count *= dimension;
        }
        total += count;
    }
    return total;
}

} // namespace headroom::hf
