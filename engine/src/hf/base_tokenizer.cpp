#include "hf/base_tokenizer.h"

#include "hf/architecture_config.h"
#include "hf/generation_defaults.h"
#include "hf/model_folder.h"
#include "tokenizers/hf_data_tokenizer.h"

#include <optional>

namespace headroom::hf {

namespace {

std::unique_ptr<data::Tokenizer> loadBaseTokenizerAs(const ModelFolder &folder,
                                                     const std::string &shown_path) {
    const GenerationDefaults defaults =
        readGenerationDefaults(folder, readArchitectureConfig(folder.config_path));
    std::optional<std::int32_t> end_of_text;
    if (!defaults.eos_token_ids.empty()) {
        end_of_text = static_cast<std::int32_t>(defaults.eos_token_ids.front());
    }
    auto tokenizer = tokenizers::loadHfDataTokenizer(shown_path, end_of_text);
    static_cast<tokenizers::HfDataTokenizer &>(*tokenizer).setAddsSpecialTokensAtStart(true);
    return tokenizer;
}

} // namespace

std::unique_ptr<data::Tokenizer> loadBaseTokenizer(const ModelFolder &folder) {
    return loadBaseTokenizerAs(folder, folder.folder);
}

std::unique_ptr<data::Tokenizer> loadBaseTokenizer(const std::string &folder_path) {
    return loadBaseTokenizerAs(locateModelFolder(folder_path), folder_path);
}

std::unique_ptr<data::Tokenizer> loadEncoderTokenizer(const std::string &path) {
    auto tokenizer = tokenizers::loadHfDataTokenizer(path);
    static_cast<tokenizers::HfDataTokenizer &>(*tokenizer).setAddsSpecialTokensAtStart(true);
    return tokenizer;
}

std::unique_ptr<data::Tokenizer> loadEncoderTokenizer(const ModelFolder &folder) {
    return loadEncoderTokenizer(folder.folder);
}

} // namespace headroom::hf
