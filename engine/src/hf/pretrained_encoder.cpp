#include "hf/pretrained_encoder.h"

#include "export/output_folder.h"
#include "export/safetensors.h"
#include "export/sharded_safetensors.h"
#include "hf/encoder_layout.h"
#include "hf/hf_error.h"
#include "hf/json_file.h"
#include "hf/safetensors_file.h"
#include "hf/stored_dtype.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace headroom::hf {

namespace {

namespace fs = std::filesystem;

using config_limits::kMaxConfigBytes;

// The tokenizer files a BERT-family folder may have; the others (merges, sentencepiece) belong
// to other models.
const char *const kTokenizerFiles[] = {"tokenizer.json", "vocab.txt", "tokenizer_config.json",
                                       "special_tokens_map.json", "added_tokens.json"};

// The source's config.json with the keys that describe `config` replaced, so that keys this
// engine does not read (initializer_range, classifier_dropout, ...) survive the round trip.
std::string exportedConfig(const EncoderConfig &config, const ModelFolder &source) {
    nlohmann::ordered_json merged = nlohmann::ordered_json::object();
    std::error_code error;
    if (fs::is_regular_file(source.config_path, error)) {
        merged =
            parseOrderedJson(readTextFile(source.config_path, kMaxConfigBytes), source.config_path);
        if (!merged.is_object()) {
            merged = nlohmann::ordered_json::object();
        }
    }
    const nlohmann::ordered_json keys = nlohmann::ordered_json::parse(encoderConfigJson(config));
    for (const auto &[key, value] : keys.items()) {
        merged[key] = value;
    }
    if (merged.contains("dtype")) { // transformers 5's name for torch_dtype
        merged["dtype"] = "float32";
    }
    return merged.dump(2) + "\n";
}

} // namespace

models::BertEncoderOptions bertEncoderOptions(const EncoderConfig &config) {
    return models::BertEncoderOptions()
        .family(config.family == EncoderFamily::Bert ? models::EncoderFamily::Bert
                                                     : models::EncoderFamily::DistilBert)
        .vocab_size(config.vocab_size)
        .hidden_size(config.hidden_size)
        .layers(config.layers)
        .heads(config.heads)
        .intermediate_size(config.intermediate_size)
        .max_positions(config.max_positions)
        .type_vocab_size(config.type_vocab_size)
        .layer_norm_eps(config.layer_norm_eps)
        .activation(config.activation)
        .hidden_dropout(config.hidden_dropout)
        .attention_dropout(config.attention_dropout)
        .tie_word_embeddings(config.tie_word_embeddings)
        .pad_token_id(config.pad_token_id.value_or(-1));
}

void loadEncoderWeights(models::BertEncoderImpl &encoder, const ModelFolder &folder,
                        const EncoderConfig &config) {
    std::vector<SafetensorsFile> files;
    files.reserve(folder.weight_files.size());
    for (const std::string &path : folder.weight_files) {
        files.push_back(SafetensorsFile::open(path));
    }
    const std::map<std::string, LocatedTensor> located =
        validateEncoderCheckpoint(folder, config, files);
    torch::NoGradGuard no_grad;
    for (auto &item : encoder.named_parameters()) {
        const std::string name = encoder.checkpointName(item.key());
        const auto found = located.find(name);
        if (found == located.end()) {
            throw ModelFolderError(folder.folder + ": the weights have no tensor " + name);
        }
        const SafetensorsFile &file = files[found->second.file];
        const TensorRecord &record = found->second.record;
        torch::Tensor parameter = item.value();
        if (record.shape != parameter.sizes().vec()) {
            throw ModelFolderError(file.path() + ": tensor " + record.name + " has shape " +
                                   shapeText(record.shape) + ", the model needs " +
                                   shapeText(parameter.sizes().vec()));
        }
        // from_blob does not copy; the mapping is read-only and nothing writes through it.
        const torch::Tensor stored =
            torch::from_blob(const_cast<std::uint8_t *>(file.data(record)), record.shape,
                             torch::TensorOptions().dtype(storedScalarType(record.dtype)));
        parameter.copy_(stored);
        if (!torch::isfinite(parameter).all().item<bool>()) {
            throw ModelFolderError(file.path() + ": tensor " + record.name +
                                   " holds NaN or infinite values");
        }
    }
}

models::BertEncoder loadPretrainedEncoder(const ModelFolder &folder) {
    const EncoderConfig config = readEncoderConfig(folder.config_path);
    models::BertEncoder encoder(bertEncoderOptions(config));
    loadEncoderWeights(*encoder, folder, config);
    return encoder;
}

exporting::WrittenWeights exportEncoder(const models::BertEncoder &encoder,
                                        const EncoderConfig &config, const ModelFolder &source,
                                        const std::string &out_folder,
                                        std::uint64_t max_shard_bytes) {
    const models::BertEncoderOptions &options = encoder->options();
    if (options.vocab_size() != config.vocab_size || options.hidden_size() != config.hidden_size ||
        options.layers() != config.layers ||
        options.tie_word_embeddings() != config.tie_word_embeddings ||
        (options.family() == models::EncoderFamily::Bert) !=
            (config.family == EncoderFamily::Bert)) {
        throw std::invalid_argument("exportEncoder: the encoder was not built from this " +
                                    config.architecture +
                                    " config (vocabulary, width, layers, "
                                    "family or tied decoder differ)");
    }
    const std::string config_text = exportedConfig(config, source);
    exporting::prepareOutputFolder(out_folder);
    std::vector<torch::Tensor> keep_alive;
    std::vector<exporting::TensorView> views;
    for (const auto &item : encoder->named_parameters()) {
        keep_alive.push_back(item.value().detach().to(torch::kCPU, torch::kFloat).contiguous());
        const torch::Tensor &stored = keep_alive.back();
        exporting::TensorView view;
        view.name = encoder->checkpointName(item.key());
        view.dtype = "F32";
        view.shape = stored.sizes().vec();
        view.data = stored.data_ptr();
        view.bytes = static_cast<std::uint64_t>(stored.nbytes());
        views.push_back(std::move(view));
    }
    const exporting::WrittenWeights written =
        exporting::writeModelWeights(out_folder, views, {{"format", "pt"}}, max_shard_bytes);
    exporting::writeTextFile((fs::path(out_folder) / "config.json").string(), config_text);
    for (const char *name : kTokenizerFiles) {
        const fs::path from = fs::path(source.folder) / name;
        std::error_code error;
        if (fs::is_regular_file(from, error)) {
            fs::copy_file(from, fs::path(out_folder) / name, error);
            if (error) {
                throw InputError("cannot copy " + from.string() + ": " + error.message());
            }
        }
    }
    return written;
}

} // namespace headroom::hf
