#include "hf/base_tokenizer.h"

#include "hf/architecture_config.h"
#include "hf/generation_defaults.h"
#include "hf/model_folder.h"
#include "tokenizers/hf_data_tokenizer.h"

#include <optional>

namespace headroom::hf {

std::unique_ptr<data::Tokenizer> loadBaseTokenizer(const std::string &folder) {
    const ModelFolder located = locateModelFolder(folder);
    const GenerationDefaults defaults =
        readGenerationDefaults(located, readArchitectureConfig(located.config_path));
    std::optional<std::int32_t> end_of_text;
    if (!defaults.eos_token_ids.empty()) {
        end_of_text = static_cast<std::int32_t>(defaults.eos_token_ids.front());
    }
    auto tokenizer = tokenizers::loadHfDataTokenizer(folder, end_of_text);
    static_cast<tokenizers::HfDataTokenizer &>(*tokenizer).setAddsSpecialTokensAtStart(true);
    return tokenizer;
}

std::unique_ptr<data::Tokenizer> loadEncoderTokenizer(const std::string &path) {
    auto tokenizer = tokenizers::loadHfDataTokenizer(path);
    static_cast<tokenizers::HfDataTokenizer &>(*tokenizer).setAddsSpecialTokensAtStart(true);
    return tokenizer;
}

} // namespace headroom::hf
