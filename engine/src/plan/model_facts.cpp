#include "plan/model_facts.h"

#include "data/tokenizer.h"
#include "train/run_setup.h"

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

ModelFacts storedModelFacts(const Config &config, const Project &project) {
    if (config.text("recipe") == "gpt") {
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

} // namespace headroom::plan
