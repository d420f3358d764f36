// previewTokens / previewTokensWith: which tokenizer a data file is measured with; the measuring
// itself is workflow/token_statistics.cpp.
#include "data/data_error.h"
#include "data/tokenizer_training.h"
#include "hf/base_tokenizer.h"
#include "tokenizers/hf_data_tokenizer.h"
#include "train/prepared_data.h"
#include "workflow/data_checks.h"
#include "workflow/token_statistics.h"

#include <headroom/project.h>
#include <headroom/token_preview.h>
#include <headroom/tokenizer.h>

#include <algorithm>
#include <filesystem>

namespace headroom {

namespace {

bool isProjectFile(const std::string &path) {
    return std::filesystem::path(path).extension() == ".headroom";
}

bool isModelFolder(const std::string &path) {
    std::error_code error;
    return std::filesystem::is_regular_file(std::filesystem::path(path) / "config.json", error);
}

// A Hugging Face tokenizer as a pretrained base's project would use it; a bare tokenizer
// (no config.json beside it) separates documents with its own end-of-text token.
std::unique_ptr<data::Tokenizer> loadHfTokenizerForData(const std::string &path) {
    try {
        if (isModelFolder(path)) {
            return hf::loadBaseTokenizer(path);
        }
        auto tokenizer = tokenizers::loadHfDataTokenizer(path);
        static_cast<tokenizers::HfDataTokenizer &>(*tokenizer).setAddsSpecialTokensAtStart(true);
        return tokenizer;
    } catch (const TokenizerError &error) {
        throw InputError(std::string("the tokenizer cannot be loaded: ") + error.what());
    }
}

TokenPreview measure(const data::DataSpec &spec, const data::Tokenizer &tokenizer,
                     std::int64_t seq_len, const TokenPreviewLimits &limits) {
    try {
        return workflow::measureTokens(spec, tokenizer, seq_len, limits);
    } catch (const data::DataError &error) {
        throw InputError(error.what());
    }
}

std::unique_ptr<data::Tokenizer> trainPreviewSentencePiece(data::DataSpec spec,
                                                           data::TokenizerKind kind,
                                                           std::int32_t vocab_size,
                                                           const TokenPreviewLimits &limits) {
    spec.max_examples = spec.max_examples > 0 ? std::min(spec.max_examples, limits.max_records)
                                              : limits.max_records;
    try {
        return data::trainSentencePiece(spec, kind, vocab_size);
    } catch (const data::DataError &error) {
        throw InputError(error.what());
    } catch (const std::runtime_error &error) {
        throw InputError("the " + data::toString(kind) +
                         " tokenizer cannot be trained for the preview: " + error.what());
    }
}

TokenPreview previewWithProject(const std::string &project_path, const std::string &data_path,
                                std::int64_t seq_len, const TokenPreviewLimits &limits) {
    Project project = Project::openForReading(project_path);
    const Config config = Config::fromJson(project.configJson());
    if (!config.isLanguageModel()) {
        throw InputError(project_path + " is a recipe=" + config.text("recipe") +
                         " project: only language models (gpt, causal_lm) have a tokenizer");
    }
    const data::DataSpec spec = workflow::previewDataSpec(config, data_path);
    train::PreparedData prepared;
    try {
        prepared = train::prepareData(config, project, [](const std::string &) {});
    } catch (const data::DataError &error) {
        throw InputError(error.what());
    }
    TokenPreview preview = measure(spec, *prepared.tokenizer,
                                   seq_len > 0 ? seq_len : config.integer("model.seq_len"), limits);
    preview.tokenizer =
        config.text("model.base").empty() ? config.text("tokenizer") : config.text("model.base");
    return preview;
}

} // namespace

TokenPreview previewTokens(const Config &config, const std::string &data_path,
                           const TokenPreviewLimits &limits) {
    const std::string base = config.text("model.base");
    if (!config.isLanguageModel() && base.empty()) {
        throw InputError(
            "only a language model tokenizes its data (recipe=" + config.text("recipe") + ")");
    }
    const data::DataSpec spec = workflow::previewDataSpec(config, data_path);
    const std::int64_t seq_len = config.integer("model.seq_len");
    if (!base.empty()) {
        TokenPreview preview = measure(spec, *loadHfTokenizerForData(base), seq_len, limits);
        preview.tokenizer = base;
        return preview;
    }
    const std::string kind_name = config.text("tokenizer");
    if (kind_name == "base") {
        throw InputError("tokenizer=base needs model.base, the Hugging Face model folder whose "
                         "tokenizer it is");
    }
    const data::TokenizerKind kind = data::parseTokenizerKind(kind_name);
    TokenPreview preview;
    if (kind == data::TokenizerKind::Byte) {
        preview = measure(spec, *data::makeByteTokenizer(), seq_len, limits);
    } else {
        const auto vocab_size = static_cast<std::int32_t>(config.integer("tokenizer.vocab_size"));
        preview = measure(spec, *trainPreviewSentencePiece(spec, kind, vocab_size, limits), seq_len,
                          limits);
        preview.trained_on_sample = true;
    }
    preview.tokenizer = kind_name;
    return preview;
}

TokenPreview previewTokensWith(const std::string &tokenizer_path, const std::string &data_path,
                               std::int64_t seq_len, const TokenPreviewLimits &limits) {
    if (isProjectFile(tokenizer_path)) {
        return previewWithProject(tokenizer_path, data_path, seq_len, limits);
    }
    Config config;
    config.set("recipe", "gpt");
    const data::DataSpec spec = workflow::previewDataSpec(config, data_path);
    TokenPreview preview = measure(spec, *loadHfTokenizerForData(tokenizer_path), seq_len, limits);
    preview.tokenizer = tokenizer_path;
    return preview;
}

} // namespace headroom
