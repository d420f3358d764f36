#pragma once

// The assembled pipeline behind headroom::HfTokenizer.

#include "tokenizers/added_vocabulary.h"
#include "tokenizers/decoders.h"
#include "tokenizers/models.h"
#include "tokenizers/normalizers.h"
#include "tokenizers/post_processors.h"
#include "tokenizers/pre_tokenizers.h"

#include <headroom/tokenizer.h>

#include <memory>
#include <string>

namespace headroom {

struct HfTokenizer::Impl {
    std::string source;
    std::unique_ptr<tokenizers::Normalizer> normalizer;
    std::unique_ptr<tokenizers::PreTokenizer> pre_tokenizer;
    std::unique_ptr<tokenizers::Model> model;
    std::unique_ptr<tokenizers::PostProcessor> post_processor;
    std::unique_ptr<tokenizers::Decoder> decoder;
    tokenizers::AddedVocabulary added;

    TokenizedText encode(const std::string &text, bool add_special_tokens) const;
    std::string decode(const std::vector<std::int32_t> &ids, bool skip_special_tokens) const;
};

namespace tokenizers {

// tokenizer.json text -> pipeline; `name` is used in messages.
std::unique_ptr<HfTokenizer::Impl> loadTokenizerJson(const std::string &json, const std::string &name);
// GPT-2 style vocab.json + merges.txt.
std::unique_ptr<HfTokenizer::Impl> loadVocabAndMerges(const std::string &vocab_path,
                                                      const std::string &merges_path);
// BERT vocab.txt (lowercasing unless the folder's tokenizer_config.json says do_lower_case false).
std::unique_ptr<HfTokenizer::Impl> loadWordPieceVocab(const std::string &vocab_path, bool lowercase);

std::string readFile(const std::string &path);

} // namespace tokenizers

} // namespace headroom
