#include "plan/model_facts.h"

#include "hf/model_folder.h"
#include "tokenizers/tokenizer.h"
#include "train/prepared_data.h"

namespace headroom::plan {

ModelFacts gptFacts(std::int64_t vocab_size) {
    ModelFacts facts;
    facts.vocab_size = vocab_size;
    return facts;
}

ModelFacts tabularFacts(const data::TabularSchema &schema) {
    ModelFacts facts;
    facts.numeric_features = static_cast<std::int64_t>(schema.numeric.size());
    for (const auto &column : schema.categorical) {
        // The id 0 is "unknown", as in makeTabularRecipe.
        facts.cardinalities.push_back(static_cast<std::int64_t>(column.categories.size()) + 1);
    }
    facts.outputs = schema.classification ? static_cast<std::int64_t>(schema.classes.size()) : 1;
    return facts;
}

ModelFacts pretrainedFacts(const hf::ArchitectureConfig &a) {
    PretrainedArchitecture pretrained;
    pretrained.name = a.architecture;
    pretrained.gpt2 = a.family == hf::ModelFamily::Gpt2;
    pretrained.dim = a.hidden_size;
    pretrained.layers = a.layers;
    pretrained.heads = a.heads;
    pretrained.kv_heads = a.kv_heads;
    pretrained.head_dim = a.head_dim;
    pretrained.hidden = a.intermediate_size;
    pretrained.max_positions = a.max_positions;
    pretrained.qkv_bias = a.qkv_bias;
    pretrained.o_bias = a.o_bias;
    pretrained.mlp_bias = a.mlp_bias;
    pretrained.tied_embeddings = a.tie_word_embeddings;
    pretrained.embedding_dropout = a.embedding_dropout;
    pretrained.residual_dropout = a.residual_dropout;
    pretrained.attention_dropout = a.attention_dropout;
    pretrained.experts = a.experts;
    pretrained.experts_per_token = a.experts_per_token;
    ModelFacts facts = gptFacts(a.vocab_size);
    facts.pretrained = pretrained;
    return facts;
}

hf::ArchitectureConfig architectureOf(const PretrainedArchitecture &pretrained,
                                      std::int64_t vocab_size) {
    hf::ArchitectureConfig a;
    a.architecture = pretrained.name;
    a.family = pretrained.gpt2 ? hf::ModelFamily::Gpt2 : hf::ModelFamily::Llama;
    a.vocab_size = vocab_size;
    a.hidden_size = pretrained.dim;
    a.layers = pretrained.layers;
    a.heads = pretrained.heads;
    a.kv_heads = pretrained.kv_heads;
    a.head_dim = pretrained.head_dim;
    a.intermediate_size = pretrained.hidden;
    a.max_positions = pretrained.max_positions;
    a.qkv_bias = pretrained.qkv_bias;
    a.o_bias = pretrained.o_bias;
    a.mlp_bias = pretrained.mlp_bias;
    a.tie_word_embeddings = pretrained.tied_embeddings;
    a.embedding_dropout = pretrained.embedding_dropout;
    a.residual_dropout = pretrained.residual_dropout;
    a.attention_dropout = pretrained.attention_dropout;
    a.experts = pretrained.experts;
    a.experts_per_token = pretrained.experts_per_token;
    return a;
}

ModelFacts encoderFacts(const hf::EncoderConfig &e) {
    PretrainedArchitecture pretrained;
    pretrained.name = e.architecture;
    pretrained.encoder = true;
    pretrained.distilbert = e.family == hf::EncoderFamily::DistilBert;
    pretrained.dim = e.hidden_size;
    pretrained.layers = e.layers;
    pretrained.heads = e.heads;
    pretrained.kv_heads = e.heads;
    pretrained.head_dim = e.heads > 0 ? e.hidden_size / e.heads : 0;
    pretrained.hidden = e.intermediate_size;
    pretrained.max_positions = e.max_positions;
    pretrained.tied_embeddings = e.tie_word_embeddings;
    pretrained.type_vocab_size = e.type_vocab_size;
    pretrained.residual_dropout = e.hidden_dropout;
    pretrained.attention_dropout = e.attention_dropout;
    ModelFacts facts = gptFacts(e.vocab_size);
    facts.pretrained = pretrained;
    return facts;
}

hf::EncoderConfig encoderOf(const PretrainedArchitecture &pretrained, std::int64_t vocab_size) {
    hf::EncoderConfig e;
    e.architecture = pretrained.name;
    e.family = pretrained.distilbert ? hf::EncoderFamily::DistilBert : hf::EncoderFamily::Bert;
    e.model_type = pretrained.distilbert ? "distilbert" : "bert";
    e.vocab_size = vocab_size;
    e.hidden_size = pretrained.dim;
    e.layers = pretrained.layers;
    e.heads = pretrained.heads;
    e.intermediate_size = pretrained.hidden;
    e.max_positions = pretrained.max_positions;
    e.type_vocab_size = pretrained.type_vocab_size;
    e.tie_word_embeddings = pretrained.tied_embeddings;
    e.hidden_dropout = pretrained.residual_dropout;
    e.attention_dropout = pretrained.attention_dropout;
    return e;
}

ModelFacts baseFacts(const hf::ModelFolder &folder) {
    try {
        if (hf::isEncoderArchitecture(folder.config_path)) {
            return encoderFacts(hf::readEncoderConfig(folder.config_path));
        }
        return pretrainedFacts(hf::readArchitectureConfig(folder.config_path));
    } catch (const InputError &error) {
        throw ConfigError(std::string("model.base: ") + error.what());
    }
}

ModelFacts withPretrained(const Config &config, ModelFacts facts, const std::string &project_path) {
    if (facts.pretrained || config.text("model.base").empty()) {
        return facts;
    }
    hf::ModelFolder folder;
    try {
        folder =
            hf::locateModelFolder(train::resolveDataPath(config.text("model.base"), project_path));
    } catch (const InputError &error) {
        throw ConfigError(std::string("model.base: ") + error.what());
    }
    return baseFacts(folder);
}

ModelFacts storedModelFacts(const Config &config, const Project &project) {
    if (!config.text("model.base").empty()) {
        // tokenizer=base: the vocabulary is the base's, whatever its tokenizer file holds.
        return withPretrained(config, {}, project.path());
    }
    if (config.isLanguageModel()) {
        const data::TokenizerKind kind = data::parseTokenizerKind(config.text("tokenizer"));
        if (kind == data::TokenizerKind::Byte) {
            return gptFacts(data::makeByteTokenizer()->vocabSize());
        }
        if (const auto stored = project.blob(train::tokenizerBlobName(config))) {
            return gptFacts(data::loadTokenizer(kind, *stored)->vocabSize());
        }
        return gptFacts(config.integer("tokenizer.vocab_size"));
    }
    const data::DataSpec spec = train::dataSpecFromConfig(config, project.path());
    if (const auto stored = project.blob(train::schemaBlobName(spec))) {
        return tabularFacts(data::TabularSchema::fromJson(*stored));
    }
    return tabularFacts(data::inferTabularSchema(spec));
}

std::uint64_t uncorrectedPeak(const Config &measured, const train::PreparedData &data) {
    if (data.tokenizer) {
        return estimateMemory(measured, gptFacts(data.tokenizer->vocabSize())).model_peak;
    }
    if (data.schema) {
        return estimateMemory(measured, tabularFacts(*data.schema)).model_peak;
    }
    return 0;
}

} // namespace headroom::plan
