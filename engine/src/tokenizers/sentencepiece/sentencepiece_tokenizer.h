#pragma once

#include "tokenizers/tokenizer.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace headroom::data {

// Recreates a BPE or unigram tokenizer from a serialized SentencePiece model proto. Throws
// std::runtime_error when the bytes are no model, or when this build has no SentencePiece.
std::unique_ptr<Tokenizer> loadSentencePieceTokenizer(TokenizerKind kind,
                                                      const std::string &serialized);

// SentencePiece skips sentences longer than its max_sentence_length: longer texts are fed in
// pieces of at most this many bytes instead.
constexpr std::size_t kMaxSentenceBytes = 8192;
// Pieces every trained model holds whatever the text: unknown, begin and end of text, and the
// 256 bytes that byte fallback encodes unseen characters with.
constexpr int kFixedPieces = 3 + 256;

// Gives SentencePiece its next training sentence; false at the end of the corpus. It must not
// throw (it is called from inside SentencePiece).
using NextSentence = bool (*)(void *context, std::string *sentence);

struct SentencePieceTraining {
    bool trained = false;
    std::string model; // the serialized model proto when trained
    std::string error; // SentencePiece's own words when not
};

// Trains a BPE or unigram model on the sentences `next` gives (deterministic: one thread, a
// fixed seed; byte fallback so any text round-trips). Throws std::runtime_error when this build
// has no SentencePiece.
SentencePieceTraining trainSentencePieceModel(TokenizerKind kind, std::int32_t vocab_size,
                                              NextSentence next, void *context);

// How many pieces SentencePiece needs when it refuses a vocabulary smaller than the fixed pieces
// plus the characters of the text: "Vocabulary size is smaller than required_chars. 64 vs 283."
std::optional<int> requiredSentencePieces(const std::string &error);

} // namespace headroom::data
