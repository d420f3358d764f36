#pragma once

#include "data/data_spec.h"
#include "tokenizers/tokenizer.h"

#include <cstdint>
#include <memory>

namespace headroom::data {

// Trains a SentencePiece model (BPE or unigram) on the text of the data set's training split.
// Throws DataError on bad data, std::runtime_error when SentencePiece refuses (message says why,
// e.g. vocabulary too large for the corpus).
std::unique_ptr<Tokenizer> trainSentencePiece(const DataSpec &spec, TokenizerKind kind,
                                              std::int32_t vocab_size);

} // namespace headroom::data
