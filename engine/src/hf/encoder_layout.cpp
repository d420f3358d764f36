#include "hf/encoder_layout.h"

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

bool isBert(const EncoderConfig &config) {
    return config.family == EncoderFamily::Bert;
}

// The decoder weight, stored by some tools even when it is the word embedding matrix.
std::string decoderWeightName(const EncoderConfig &config) {
    return isBert(config) ? "cls.predictions.decoder.weight" : "vocab_projector.weight";
}

std::string embeddingName(const EncoderConfig &config) {
    return encoderBodyPrefix(config) + "embeddings.word_embeddings.weight";
}

void addLayer(const EncoderConfig &c, std::int64_t layer, std::vector<ExpectedTensor> &tensors) {
    const std::int64_t h = c.hidden_size;
    const std::int64_t inner = c.intermediate_size;
    const std::string prefix = encoderBodyPrefix(c) +
                               (isBert(c) ? "encoder.layer." : "transformer.layer.") +
                               std::to_string(layer) + ".";
    const auto linear = [&](const std::string &name, std::int64_t out, std::int64_t in) {
        tensors.push_back({prefix + name + ".weight", {out, in}});
        tensors.push_back({prefix + name + ".bias", {out}});
    };
    const auto norm = [&](const std::string &name) {
        tensors.push_back({prefix + name + ".weight", {h}});
        tensors.push_back({prefix + name + ".bias", {h}});
    };
    if (isBert(c)) {
        linear("attention.self.query", h, h);
        linear("attention.self.key", h, h);
        linear("attention.self.value", h, h);
        linear("attention.output.dense", h, h);
        norm("attention.output.LayerNorm");
        linear("intermediate.dense", inner, h);
        linear("output.dense", h, inner);
        norm("output.LayerNorm");
    } else {
        linear("attention.q_lin", h, h);
        linear("attention.k_lin", h, h);
        linear("attention.v_lin", h, h);
        linear("attention.out_lin", h, h);
        norm("sa_layer_norm");
        linear("ffn.lin1", inner, h);
        linear("ffn.lin2", h, inner);
        norm("output_layer_norm");
    }
}

// The config.json keys a tensor's shape comes from, with their values, for messages.
std::string shapeSource(const EncoderConfig &c, const std::string &name) {
    const std::string hidden = keyValue(isBert(c) ? "hidden_size" : "dim", c.hidden_size);
    const std::string inner =
        keyValue(isBert(c) ? "intermediate_size" : "hidden_dim", c.intermediate_size);
    if (contains(name, "word_embeddings") || contains(name, "decoder") ||
        contains(name, "vocab_projector") || name == "cls.predictions.bias") {
        return keyValue("vocab_size", c.vocab_size) + ", " + hidden;
    }
    if (contains(name, "position_embeddings")) {
        return keyValue("max_position_embeddings", c.max_positions) + ", " + hidden;
    }
    if (contains(name, "token_type_embeddings")) {
        return keyValue("type_vocab_size", c.type_vocab_size) + ", " + hidden;
    }
    if (contains(name, "intermediate.") || contains(name, ".output.dense") ||
        contains(name, "ffn.")) {
        return hidden + ", " + inner;
    }
    return hidden;
}

void checkIndex(const ModelFolder &folder, const std::vector<SafetensorsFile> &files,
                const std::map<std::string, LocatedTensor> &located) {
    const std::string index_name = "model.safetensors.index.json";
    for (const auto &[name, tensor] : located) {
        if (folder.index_weight_map.empty()) {
            return;
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
}

[[noreturn]] void missingTensors(const ModelFolder &folder,
                                 const std::vector<const ExpectedTensor *> &missing,
                                 const std::vector<SafetensorsFile> &files) {
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
    throw ModelFolderError(folder.folder + ": the weights (" +
                           (read.empty() ? std::string("no files") : read) + ") lack " +
                           std::to_string(missing.size()) + " tensor" +
                           (missing.size() == 1 ? "" : "s") + " that config.json needs: " + list);
}

} // namespace

std::string encoderBodyPrefix(const EncoderConfig &config) {
    return isBert(config) ? "bert." : "distilbert.";
}

std::vector<ExpectedTensor> expectedEncoderTensors(const EncoderConfig &c) {
    const std::int64_t h = c.hidden_size;
    const std::string body = encoderBodyPrefix(c) + "embeddings.";
    std::vector<ExpectedTensor> tensors = {
        {body + "word_embeddings.weight", {c.vocab_size, h}},
        {body + "position_embeddings.weight", {c.max_positions, h}},
    };
    if (isBert(c)) {
        tensors.push_back({body + "token_type_embeddings.weight", {c.type_vocab_size, h}});
    }
    tensors.push_back({body + "LayerNorm.weight", {h}});
    tensors.push_back({body + "LayerNorm.bias", {h}});
    for (std::int64_t layer = 0; layer < c.layers; ++layer) {
        addLayer(c, layer, tensors);
    }
    const std::string transform = isBert(c) ? "cls.predictions.transform.dense" : "vocab_transform";
    const std::string norm = isBert(c) ? "cls.predictions.transform.LayerNorm" : "vocab_layer_norm";
    tensors.push_back({transform + ".weight", {h, h}});
    tensors.push_back({transform + ".bias", {h}});
    tensors.push_back({norm + ".weight", {h}});
    tensors.push_back({norm + ".bias", {h}});
    if (!c.tie_word_embeddings) {
        tensors.push_back({decoderWeightName(c), {c.vocab_size, h}});
    }
    tensors.push_back(
        {isBert(c) ? "cls.predictions.bias" : "vocab_projector.bias", {c.vocab_size}});
    return tensors;
}

std::optional<std::string> canonicalEncoderTensorName(const EncoderConfig &config,
                                                      const std::string &stored_name) {
    const std::string prefix = encoderBodyPrefix(config);
    std::string name = stored_name;
    if (startsWith(name, "embeddings.") || startsWith(name, "encoder.") ||
        startsWith(name, "transformer.") || startsWith(name, "pooler.")) {
        name = prefix + name;
    }
    if (endsWith(name, ".position_ids") || startsWith(name, prefix + "pooler.") ||
        startsWith(name, "cls.seq_relationship.")) {
        return std::nullopt;
    }
    if (config.tie_word_embeddings && name == decoderWeightName(config)) {
        return std::nullopt;
    }
    if (name == "cls.predictions.decoder.bias") {
        return std::string("cls.predictions.bias");
    }
    if (contains(name, "LayerNorm.gamma")) {
        name.replace(name.size() - 5, 5, "weight");
    } else if (contains(name, "LayerNorm.beta")) {
        name.replace(name.size() - 4, 4, "bias");
    }
    return name;
}

std::map<std::string, LocatedTensor>
validateEncoderCheckpoint(const ModelFolder &folder, const EncoderConfig &config,
                          const std::vector<SafetensorsFile> &files) {
    const std::vector<ExpectedTensor> expected = expectedEncoderTensors(config);
    std::map<std::string, const ExpectedTensor *> by_name;
    for (const ExpectedTensor &tensor : expected) {
        by_name.emplace(tensor.name, &tensor);
    }
    std::map<std::string, LocatedTensor> located;
    for (std::size_t file = 0; file < files.size(); ++file) {
        const std::string &path = files[file].path();
        for (const TensorRecord &record : files[file].tensors()) {
            const std::string tensor = path + ": tensor " + record.name;
            const std::optional<std::string> canonical =
                canonicalEncoderTensorName(config, record.name);
            // A tied decoder weight is the embedding: only its shape is checked.
            const bool tied_decoder = !canonical && config.tie_word_embeddings &&
                                      record.name == decoderWeightName(config);
            if (!canonical && !tied_decoder) {
                continue;
            }
            const auto wanted =
                tied_decoder ? by_name.find(embeddingName(config)) : by_name.find(*canonical);
            if (wanted == by_name.end()) {
                throw ModelFolderError(path + ": unexpected tensor " + record.name + ": a " +
                                       config.architecture + " with " +
                                       std::to_string(config.layers) +
                                       " layers as config.json describes has no such weight");
            }
            if (!floatingDtype(record.dtype)) {
                throw ModelFolderError(tensor + " has dtype " + record.dtype +
                                       "; supported dtypes: F32, F16, BF16");
            }
            const std::vector<std::int64_t> &shape = wanted->second->shape;
            if (record.shape != shape) {
                throw ModelFolderError(
                    tensor + " has shape " + shapeText(record.shape) + ", config.json (" +
                    shapeSource(config, wanted->first) + ") needs " + shapeText(shape) +
                    (tied_decoder ? " (tie_word_embeddings: the word embeddings' shape)" : ""));
            }
            if (tied_decoder) {
                continue;
            }
            const auto [previous, inserted] =
                located.emplace(*canonical, LocatedTensor{file, record});
            const bool bias_alias =
                *canonical == "cls.predictions.bias" &&
                (record.name == "cls.predictions.decoder.bias" ||
                 previous->second.record.name == "cls.predictions.decoder.bias");
            if (!inserted && bias_alias) {
                // Both spellings of the tied decoder bias: keep cls.predictions.bias.
                if (record.name == "cls.predictions.bias") {
                    previous->second = LocatedTensor{file, record};
                }
            } else if (!inserted) {
                throw ModelFolderError("tensor " + *canonical + " is stored twice: as " +
                                       previous->second.record.name + " in " +
                                       files[previous->second.file].path() + " and as " +
                                       record.name + " in " + path);
            }
        }
    }
    checkIndex(folder, files, located);
    std::vector<const ExpectedTensor *> missing;
    for (const ExpectedTensor &tensor : expected) {
        if (located.count(tensor.name) == 0) {
            missing.push_back(&tensor);
        }
    }
    if (!missing.empty()) {
        missingTensors(folder, missing, files);
    }
    return located;
}

std::int64_t parameterCount(const EncoderConfig &config) {
    std::int64_t total = 0;
    for (const ExpectedTensor &tensor : expectedEncoderTensors(config)) {
        std::int64_t count = 1;
        for (const std::int64_t dimension : tensor.shape) {
            count *= dimension;
        }
        total += count;
    }
    return total;
}

} // namespace headroom::hf
