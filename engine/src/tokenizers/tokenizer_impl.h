#pragma once

// The assembled pipeline behind headroom::HfTokenizer.

#include "tokenizers/added_vocabulary.h"
#include "tokenizers/decoders/decoders.h"
#include "tokenizers/models/models.h"
#include "tokenizers/normalizers/normalizers.h"
#include "tokenizers/pre_tokenizers/pre_tokenizers.h"
#include "tokenizers/processors/post_processors.h"

#include <headroom/tokenizer.h>

#include <memory>
#include <optional>
#include <string>

namespace headroom {

namespace tokenizers {

// tokenizer.json's "truncation" (one sequence: LongestFirst and OnlyFirst cut the same way).
struct Truncation {
    std::size_t max_length = 0;
    bool from_left = false;
    bool only_second = false; // refused at encode time: there is no second sequence
};

// tokenizer.json's "padding".
struct Padding {
    std::size_t fixed = 0; // 0: BatchLongest (the sequence's own length)
    std::size_t multiple_of = 0;
    bool on_left = false;
    std::int32_t pad_id = 0;
    std::string pad_token;
};

} // namespace tokenizers

struct HfTokenizer::Impl {
    std::string source;
    std::unique_ptr<tokenizers::Normalizer> normalizer;
    std::unique_ptr<tokenizers::PreTokenizer> pre_tokenizer;
    std::unique_ptr<tokenizers::Model> model;
    std::unique_ptr<tokenizers::PostProcessor> post_processor;
    std::unique_ptr<tokenizers::Decoder> decoder;
    tokenizers::AddedVocabulary added;
    std::optional<tokenizers::Truncation> truncation;
    std::optional<tokenizers::Padding> padding;

    TokenizedText encode(const std::string &text, bool add_special_tokens) const;
    void truncate(TokenizedText &encoding, bool add_special_tokens) const;
    void pad(TokenizedText &encoding) const;
    std::string decode(const std::vector<std::int32_t> &ids, bool skip_special_tokens) const;
};

namespace tokenizers {

// tokenizer.json text -> pipeline; `name` is used in messages.
std::unique_ptr<HfTokenizer::Impl> loadTokenizerJson(const std::string &json,
                                                     const std::string &name);
// GPT-2 style vocab.json + merges.txt.
std::unique_ptr<HfTokenizer::Impl> loadVocabAndMerges(const std::string &vocab_path,
                                                      const std::string &merges_path);
// BERT vocab.txt (lowercasing unless the folder's tokenizer_config.json says do_lower_case false).
std::unique_ptr<HfTokenizer::Impl> loadWordPieceVocab(const std::string &vocab_path,
                                                      bool lowercase);

// A SentencePiece tokenizer.model, with tokenizer_config.json / special_tokens_map.json from
// its folder when they are there (added tokens, BOS/EOS).
std::unique_ptr<HfTokenizer::Impl> loadSentencePieceModel(const std::string &model_path);

std::string readFile(const std::string &path);

} // namespace tokenizers

} // namespace headroom
