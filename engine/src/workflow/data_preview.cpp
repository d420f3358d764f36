#include "data/data_error.h"
#include "data/example_stream.h"
#include "data/record_reader.h"
#include "data/tabular_schema.h"
#include "plan/model_facts.h"
#include "plan/tabular_defaults.h"
#include "tokenizers/tokenizer.h"
#include "train/prepared_data.h"
#include "workflow/data_checks.h"

#include <headroom/data_preview.h>

#include <filesystem>

namespace headroom {

namespace workflow {

data::DataSpec previewDataSpec(const Config &config, const std::string &data_path) {
    if (data_path.empty()) {
        throw InputError("no data file chosen");
    }
    std::error_code error;
    if (!std::filesystem::is_regular_file(data_path, error)) {
        throw InputError(data_path + ": no such file");
    }
    Config with_path = config;
    with_path.set("data.path", std::filesystem::absolute(data_path).lexically_normal().string());
    data::DataSpec spec = train::dataSpecFromConfig(with_path, "");
    // A file of preference pairs (or KTO's unpaired records) is read as such whatever the
    // objective chosen so far, so the wizard can offer the objective and `tokenize` measure it.
    spec.preference = spec.preference || (!spec.retrieval && data::startsWithPreferencePair(spec));
    spec.unpaired = spec.unpaired || (!spec.retrieval && !spec.preference &&
                                      data::startsWithUnpairedPreference(spec));
    spec.prompts = spec.prompts || (!spec.retrieval && !spec.preference && !spec.unpaired &&
                                    data::startsWithPrompts(spec));
    requireCsvForTabular(config, spec, data_path);
    requireJsonForRetrieval(config, spec, data_path);
    return spec;
}

} // namespace workflow

DataPreview previewData(const Config &config, const std::string &data_path, int rows) {
    const data::DataSpec spec = workflow::previewDataSpec(config, data_path);
    try {
        const data::DataSummary summary = data::inspectData(spec, rows);
        DataPreview preview;
        preview.format = data::toString(summary.format);
        preview.records = summary.records;
        preview.bytes = summary.bytes;
        preview.columns = summary.columns;
        preview.preview = summary.preview;
        preview.preference_pairs = spec.preference;
        preview.unpaired_preference = spec.unpaired;
        preview.prompts = spec.prompts;
        return preview;
    } catch (const data::DataError &error) {
        throw InputError(error.what());
    }
}

DataPlan planForData(const Config &config, const std::string &data_path) {
    const data::DataSpec spec = workflow::previewDataSpec(config, data_path);
    DataPlan plan;
    if (!config.text("model.base").empty()) {
        // A pretrained base brings its own tokenizer and shapes (never a SentencePiece kind).
        plan.facts = plan::withPretrained(config, {});
        return plan;
    }
    if (config.text("tokenizer") == "base") {
        throw InputError("tokenizer=base needs model.base, the Hugging Face model folder whose "
                         "tokenizer it is");
    }
    if (config.isLanguageModel()) {
        plan.facts = plan::gptFacts(data::parseTokenizerKind(config.text("tokenizer")) ==
                                            data::TokenizerKind::Byte
                                        ? data::makeByteTokenizer()->vocabSize()
                                        : config.integer("tokenizer.vocab_size"));
        return plan;
    }
    try {
        // One pass over the file serves both.
        const data::TabularSchema schema = data::inferTabularSchema(spec);
        plan.facts = plan::tabularFacts(schema);
        plan.defaults = plan::tabularDefaults(schema, config, {});
    } catch (const data::DataError &error) {
        throw InputError(error.what());
    }
    return plan;
}

ModelFacts modelFactsFor(const Config &config, const std::string &data_path) {
    return planForData(config, data_path).facts;
}

} // namespace headroom
