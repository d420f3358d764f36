#pragma once

// A Hugging Face tokenizer (headroom::HfTokenizer) behind the training data pipeline's
// data::Tokenizer interface, so text can stream through it on the fly.
//
// Not yet a kind of its own: kind() reports Bpe or Unigram after the model inside, and
// serialize() returns the tokenizer.json text it came from, which data::loadTokenizer does
// not read (that needs a new TokenizerKind, left to the project-file work).

#include "tokenizers/tokenizer.h"

#include <headroom/tokenizer.h>

#include <optional>

namespace headroom::tokenizers {

class HfDataTokenizer : public data::Tokenizer {
public:
    // `end_of_text`: the id that separates documents; by default the first of
    // <|endoftext|>, <|end_of_text|>, </s>, <|im_end|>, [SEP], <eos> the tokenizer knows.
    // Throws TokenizerError when there is none.
    HfDataTokenizer(HfTokenizer tokenizer, std::string serialized,
                    std::optional<std::int32_t> end_of_text = std::nullopt);

    data::TokenizerKind kind() const override { return kind_; }
    std::int32_t vocabSize() const override;
    std::int32_t endOfTextId() const override { return end_of_text_; }
    // Without the post-processor's specials (documents are joined with endOfTextId). Bytes
    // that are not UTF-8 become U+FFFD first, as a Rust String::from_utf8_lossy would.
    std::vector<std::int32_t> encode(const std::string &utf8) const override;
    // With the post-processor's specials when the tokenizer was made for a pretrained model
    // (setAddsSpecialTokensAtStart), as its library tokenizes a text by default.
    std::vector<std::int32_t> encodeStart(const std::string &utf8) const override;
    void setAddsSpecialTokensAtStart(bool adds) { specials_at_start_ = adds; }
    std::string decode(const std::vector<std::int32_t> &ids) const override;
    // Without specials, as encode(); the offsets are the reference's (exact unless a
    // normalizer rewrote the text). False for text that is not UTF-8.
    bool
    encodeWithOffsets(const std::string &utf8, std::vector<std::int32_t> &ids,
                      std::vector<std::pair<std::size_t, std::size_t>> &offsets) const override;
    std::string serialize() const override { return serialized_; }

    const HfTokenizer &tokenizer() const { return tokenizer_; }

private:
    HfTokenizer tokenizer_;
    std::string serialized_;
    std::int32_t end_of_text_ = 0;
    bool specials_at_start_ = false;
    data::TokenizerKind kind_ = data::TokenizerKind::Bpe;
};

// Loads a tokenizer folder or file (as HfTokenizer::load) for the data pipeline.
std::unique_ptr<data::Tokenizer>
loadHfDataTokenizer(const std::string &path,
                    std::optional<std::int32_t> end_of_text = std::nullopt);

} // namespace headroom::tokenizers
