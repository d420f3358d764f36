#include "tokenizers/hf_data_tokenizer.h"

#include "tokenizers/tokenizer_impl.h"
#include "tokenizers/unicode.h"

#include <algorithm>
#include <filesystem>

namespace headroom::tokenizers {

HfDataTokenizer::HfDataTokenizer(HfTokenizer tokenizer, std::string serialized,
                                 std::optional<std::int32_t> end_of_text)
    : tokenizer_(std::move(tokenizer)), serialized_(std::move(serialized)) {
    if (end_of_text) {
        end_of_text_ = *end_of_text;
    } else {
        bool found = false;
        for (const char *name :
             {"<|endoftext|>", "<|end_of_text|>", "</s>", "<|im_end|>", "[SEP]", "<eos>"}) {
            if (const auto id = tokenizer_.tokenToId(name)) {
                end_of_text_ = *id;
                found = true;
                break;
            }
        }
        if (!found) {
            throw TokenizerError(tokenizer_.source() +
                                 ": no end-of-text token (<|endoftext|>, </s>, [SEP], ...) to "
                                 "separate documents");
        }
    }
    if (serialized_.find("\"Unigram\"") != std::string::npos) {
        kind_ = data::TokenizerKind::Unigram;
    }
}

std::int32_t HfDataTokenizer::vocabSize() const {
    // Ids may be sparse: the embedding table must hold the largest one.
    std::int32_t size = tokenizer_.vocabSize();
    return std::max(size, end_of_text_ + 1);
}

std::vector<std::int32_t> HfDataTokenizer::encode(const std::string &utf8) const {
    if (findInvalidUtf8(utf8) != utf8.size()) {
        return tokenizer_.encodeIds(utf8Lossy(utf8), false);
    }
    return tokenizer_.encodeIds(utf8, false);
}

bool HfDataTokenizer::encodeWithOffsets(
    const std::string &utf8, std::vector<std::int32_t> &ids,
    std::vector<std::pair<std::size_t, std::size_t>> &offsets) const {
    if (findInvalidUtf8(utf8) != utf8.size()) {
        return false;
    }
    TokenizedText encoded = tokenizer_.encode(utf8, false);
    ids = std::move(encoded.ids);
    offsets = std::move(encoded.offsets);
    return true;
}

std::vector<std::int32_t> HfDataTokenizer::encodeStart(const std::string &utf8) const {
    if (!specials_at_start_) {
        return encode(utf8);
    }
    std::vector<std::int32_t> ids =
        tokenizer_.encodeIds(findInvalidUtf8(utf8) != utf8.size() ? utf8Lossy(utf8) : utf8, true);
    // A template that also closes the text with the end-of-text id: the stream adds its own.
    if (!ids.empty() && ids.back() == end_of_text_) {
        ids.pop_back();
    }
    return ids;
}

std::string HfDataTokenizer::decode(const std::vector<std::int32_t> &ids) const {
    return tokenizer_.decode(ids, false);
}

std::unique_ptr<data::Tokenizer> loadHfDataTokenizer(const std::string &path,
                                                     std::optional<std::int32_t> end_of_text) {
    HfTokenizer tokenizer = HfTokenizer::load(path);
    std::string serialized;
    std::error_code error;
    const std::filesystem::path where(path);
    const auto json =
        std::filesystem::is_directory(where, error) ? where / "tokenizer.json" : where;
    if (json.extension() == ".json" && std::filesystem::is_regular_file(json, error)) {
        serialized = readFile(json.string());
    }
    return std::make_unique<HfDataTokenizer>(std::move(tokenizer), std::move(serialized),
                                             end_of_text);
}

} // namespace headroom::tokenizers
