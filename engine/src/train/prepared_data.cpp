#include "train/prepared_data.h"

#include "chat/chat_tokens.h"
#include "data/data_error.h"
#include "data/record_reader.h"
#include "data/tokenizer_training.h"
#include "hf/base_identity.h"
#include "hf/base_tokenizer.h"
#include "hf/generation_defaults.h"
#include "hf/hf_error.h"
#include "hf/model_folder.h"
#include "hf/quantized_base_cache.h"
#include "recipes/recipe.h"

#include <headroom/config.h>
#include <headroom/project.h>
#include <headroom/tokenizer.h>

#include <filesystem>
#include <optional>

namespace headroom::train {

namespace {
// Which records are validation must not change between runs of a project.
constexpr std::uint64_t kSplitSeed = 0x48454144524f4f4dULL;
} // namespace

std::string resolveDataPath(const std::string &data_path, const std::string &project_path) {
    const std::filesystem::path path(data_path);
    if (path.is_absolute() || project_path.empty()) {
        return path.lexically_normal().string();
    }
    const std::filesystem::path folder = std::filesystem::absolute(project_path).parent_path();
    return (folder / path).lexically_normal().string();
}

data::DataSpec dataSpecFromConfig(const Config &config, const std::string &project_path) {
    data::DataSpec spec;
    spec.path = resolveDataPath(config.text("data.path"), project_path);
    const std::string &format = config.text("data.format");
    if (format == "chat") {
        spec.chat = true;
        spec.format = data::guessFormat(spec.path) == data::Format::Json ? data::Format::Json
                                                                         : data::Format::Jsonl;
    } else {
        spec.format = format == "auto" ? data::guessFormat(spec.path) : data::parseFormat(format);
    }
    spec.text_field = config.text("data.text_field");
    spec.target = config.text("data.target");
    spec.task = config.text("data.task");
    spec.shuffle_buffer = config.integer("data.shuffle_buffer");
    spec.max_examples = config.integer("data.max_examples");
    spec.validation_fraction = config.real("data.validation_fraction");
    spec.seq_len = config.integer("model.seq_len");
    spec.stride = config.integer("data.stride");
    spec.packing = config.integer("data.packing") == 1;
    const std::string &objective = config.text("train.objective");
    spec.unpaired = objective == "kto";
    spec.prompts = objective == "grpo";
    spec.preference = objective != "sft" && !spec.unpaired && !spec.prompts;
    spec.max_prompt_len = config.integer("data.max_prompt_len");
    spec.seed = static_cast<std::uint64_t>(config.integer("train.seed"));
    spec.split_seed = kSplitSeed;
    spec.retrieval = config.text("recipe") == "splade";
    spec.hard_negatives = config.integer("splade.hard_negatives");
    return spec;
}

namespace {

// data.format=auto: JSONL or JSON data is chat data when its first record is a conversation
// (or, preference data, a pair of conversations).
bool startsWithConversation(const data::DataSpec &spec) {
    if (spec.format != data::Format::Jsonl && spec.format != data::Format::Json) {
        return false;
    }
    try {
        data::RecordReader reader(spec, true);
        data::Record record;
        return reader.next(record) &&
               (record.conversation != nullptr || record.chosen_conversation != nullptr);
    } catch (const data::DataError &) {
        return false; // the stream reports what is wrong with the file
    }
}

} // namespace

chat::TemplateSource chatTemplateSource(const Config &config, const PreparedData &prepared,
                                        const std::string &project_path) {
    const std::string &setting = config.text("data.chat_template");
    const std::string base_folder = prepared.base ? prepared.base->folder : std::string();
    chat::TemplateSource source;
    try {
        if (setting.empty()) {
            if (base_folder.empty()) {
                throw ConfigError("the data is conversations, which a model trained from scratch "
                                  "has no chat template for: set data.chat_template=chatml (or "
                                  "a template file)");
            }
            if (auto found = hf::readChatTemplate(base_folder)) {
                return std::move(*found);
            }
            throw ConfigError("the data is conversations, but model.base (" + base_folder +
                              ") has no chat template (no chat_template in its "
                              "tokenizer_config.json, no chat_template.jinja): set "
                              "data.chat_template=chatml or a template file");
        }
        source = setting == "chatml"
                     ? chat::chatmlTemplate()
                     : hf::readChatTemplateFile(resolveDataPath(setting, project_path));
        if (!base_folder.empty()) {
            source.special_tokens = hf::readSpecialTokenStrings(base_folder);
        }
    } catch (const hf::ModelFolderError &error) {
        throw ConfigError(std::string("data.chat_template: ") + error.what());
    }
    return source;
}

std::shared_ptr<const chat::ChatData>
chatDataFor(const Config &config, const PreparedData &prepared, const std::string &project_path) {
    if (!prepared.tokenizer || prepared.spec.retrieval) {
        return nullptr;
    }
    if (!prepared.spec.chat && !startsWithConversation(prepared.spec)) {
        return nullptr;
    }
    try {
        return std::make_shared<const chat::ChatData>(
            chat::ChatData{chat::ChatTemplate(chatTemplateSource(config, prepared, project_path)),
                           chat::parseTrainOn(config.text("data.train_on"))});
    } catch (const chat::ChatTemplateError &error) {
        throw ConfigError(std::string("data.chat_template: ") + error.what());
    }
}

std::string tokenizerBlobName(const Config &config) {
    return "tokenizer/" + config.text("tokenizer") + "/" +
           std::to_string(config.integer("tokenizer.vocab_size"));
}

std::string schemaBlobName(const data::DataSpec &spec) {
    return "tabular_schema/" + spec.target + "/" + spec.task + "/" +
           std::to_string(spec.max_examples);
}

namespace {

// The base, tokenizer or schema of prepareData.
PreparedData prepareModelInputs(const Config &config, Project &project,
                                const ProgressCallback &progress,
                                const hf::ModelFolder *located_base) {
    PreparedData prepared;
    prepared.spec = dataSpecFromConfig(config, project.path());
    if (!config.text("model.base").empty()) {
        const std::string base_path = resolveDataPath(config.text("model.base"), project.path());
        std::optional<hf::BaseIdentity> recorded;
        if (const auto blob = project.blob(kBaseModelBlob)) {
            recorded = hf::BaseIdentity::fromJson(*blob);
        }
        if (located_base != nullptr) {
            prepared.base = *located_base;
            if (recorded) {
                hf::requireSameBase(*recorded, *prepared.base);
            }
        } else {
            prepared.base = recorded ? hf::locateRecordedBase(*recorded, base_path)
                                     : hf::locateModelFolder(base_path);
        }
        if (recorded) {
            prepared.base_cache = {hf::quantizedBaseCacheFolder(project.path()),
                                   *prepared.base->digest};
        }
        try {
            prepared.tokenizer = config.text("recipe") == "splade"
                                     ? hf::loadEncoderTokenizer(*prepared.base)
                                     : hf::loadBaseTokenizer(*prepared.base);
        } catch (const TokenizerError &error) {
            throw ConfigError(std::string("model.base: ") + error.what());
        }
        return prepared;
    }
    if (config.isLanguageModel()) {
        const data::TokenizerKind kind = data::parseTokenizerKind(config.text("tokenizer"));
        if (kind == data::TokenizerKind::Byte) {
            prepared.tokenizer = data::makeByteTokenizer();
            return prepared;
        }
        const auto vocab_size = static_cast<std::int32_t>(config.integer("tokenizer.vocab_size"));
        const std::string blob_name = tokenizerBlobName(config);
        if (const auto stored = project.blob(blob_name)) {
            prepared.tokenizer = data::loadTokenizer(kind, *stored);
        } else {
            progress("training the " + data::toString(kind) + " tokenizer (vocabulary " +
                     std::to_string(vocab_size) + ") on the training split");
            prepared.tokenizer = data::trainSentencePiece(prepared.spec, kind, vocab_size);
            project.putBlob(blob_name, prepared.tokenizer->serialize());
        }
        return prepared;
    }
    const std::string blob_name = schemaBlobName(prepared.spec);
    if (const auto stored = project.blob(blob_name)) {
        prepared.schema = data::TabularSchema::fromJson(*stored);
    } else {
        progress("reading the training split for column statistics");
        prepared.schema = data::inferTabularSchema(prepared.spec);
        project.putBlob(blob_name, prepared.schema->toJson());
    }
    return prepared;
}

} // namespace

PreparedData prepareData(const Config &config, Project &project, const ProgressCallback &progress,
                         const hf::ModelFolder *located_base) {
    PreparedData prepared = prepareModelInputs(config, project, progress, located_base);
    prepared.spec.chat_data = chatDataFor(config, prepared, project.path());
    return prepared;
}

std::unique_ptr<Recipe> makeRecipe(const Config &config, const PreparedData &prepared,
                                   torch::Device device, const ProgressCallback &progress) {
    if (config.text("recipe") == "splade") {
        if (!prepared.base) { // Config::validate refuses this; a config that skipped it
            throw ConfigError("recipe=splade needs model.base, a BERT-family model folder");
        }
        return makeSpladeRecipe(config, *prepared.base, device);
    }
    if (prepared.base) {
        return makePretrainedRecipe(config, *prepared.base, device, progress, prepared.base_cache,
                                    prepared.tokenizer.get());
    }
    if (prepared.tokenizer) {
        return makeGptRecipe(config, prepared.tokenizer->vocabSize(), device);
    }
    return makeTabularRecipe(config, *prepared.schema, device);
}

} // namespace headroom::train
