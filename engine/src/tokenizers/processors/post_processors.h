#pragma once

// Post-processors of the reference library: they add the special tokens around an encoded
// sequence (BOS/EOS, [CLS]/[SEP]) when special tokens are asked for.

#include "tokenizers/json_reader.h"

#include <headroom/tokenizer.h>

#include <memory>

namespace headroom::tokenizers {

class PostProcessor {
public:
    virtual ~PostProcessor() = default;
    virtual void process(TokenizedText &encoding, bool add_special_tokens) const = 0;
    // How many tokens process() adds to one sequence (truncation leaves room for them).
    virtual std::size_t addedTokens() const = 0;
};

std::unique_ptr<PostProcessor> makePostProcessor(const JsonNode &node);
// [CLS] A [SEP] for BERT vocab.txt folders.
std::unique_ptr<PostProcessor> makeBertPostProcessor(std::string cls, std::int32_t cls_id,
                                                     std::string sep, std::int32_t sep_id);

} // namespace headroom::tokenizers
