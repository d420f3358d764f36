#pragma once

#include "data/tokenizer.h"

#include <memory>
#include <string>

namespace headroom::data {

// Recreates a BPE or unigram tokenizer from a serialized SentencePiece model proto. Throws
// std::runtime_error when the bytes are no model, or when this build has no SentencePiece.
std::unique_ptr<Tokenizer> loadSentencePieceTokenizer(TokenizerKind kind,
                                                      const std::string &serialized);

} // namespace headroom::data
