#pragma once

// Pre-tokenizers of the reference library: they split the normalized pieces into words (and
// may rewrite them, as ByteLevel and Metaspace do). Pieces that are added tokens pass through.

#include "tokenizers/json_reader.h"
#include "tokenizers/pieces.h"

#include <memory>

namespace headroom::tokenizers {

class PreTokenizer {
public:
    virtual ~PreTokenizer() = default;
    // Replaces `pieces` with the split result.
    void preTokenize(Pieces &pieces) const;
    // Splits one piece (never an added token), appending the results.
    virtual void split(Piece &piece, Pieces &out) const = 0;
};

std::unique_ptr<PreTokenizer> makePreTokenizer(const JsonNode &node);

// GPT-2's pre-tokenizer (vocab.json + merges.txt files).
std::unique_ptr<PreTokenizer> makeByteLevelPreTokenizer(bool add_prefix_space, bool use_regex);
// BERT's (vocab.txt files).
std::unique_ptr<PreTokenizer> makeBertPreTokenizer();

// Splits where the Unicode script changes (spaces join either side; kana counts as Han).
std::unique_ptr<PreTokenizer> makeUnicodeScriptsPreTokenizer();
// Pieces of `length` characters (the last one shorter); `length` > 0.
std::unique_ptr<PreTokenizer> makeFixedLengthPreTokenizer(std::size_t length);

enum class PrependScheme { First, Never, Always };

} // namespace headroom::tokenizers
