#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace headroom::data {

// A stored tokenizer (a SentencePiece model) larger than this is refused unread, and so is one
// whose vocabulary is larger than kMaxVocabulary (the embedding table would follow it).
constexpr std::size_t kMaxTokenizerBytes = std::size_t{64} << 20;
constexpr std::int32_t kMaxVocabulary = 1 << 20;

enum class TokenizerKind { Byte, Bpe, Unigram };
TokenizerKind parseTokenizerKind(const std::string &text); // "byte" | "bpe" | "unigram"
std::string toString(TokenizerKind kind);

class Tokenizer {
public:
    virtual ~Tokenizer() = default;
    virtual TokenizerKind kind() const = 0;
    virtual std::int32_t vocabSize() const = 0;
    // Separates documents (lines / JSONL records) in the token stream.
    virtual std::int32_t endOfTextId() const = 0;
    virtual std::vector<std::int32_t> encode(const std::string &utf8) const = 0;
    // The start of a document or prompt: with the beginning-of-sequence token a pretrained
    // model's tokenizer adds (Llama's BOS); as encode() for tokenizers without one.
    virtual std::vector<std::int32_t> encodeStart(const std::string &utf8) const {
        return encode(utf8);
    }
    virtual std::string decode(const std::vector<std::int32_t> &ids) const = 0;
    // As encode(), with each token's byte range [begin, end) in `utf8`. False when the
    // tokenizer cannot tell where its tokens come from; callers then encode piece by piece.
    virtual bool
    encodeWithOffsets(const std::string &utf8, std::vector<std::int32_t> &ids,
                      std::vector<std::pair<std::size_t, std::size_t>> &offsets) const {
        return false;
    }
    // Bytes that recreate this tokenizer with loadTokenizer (empty for Byte).
    virtual std::string serialize() const = 0;
};

// Bytes 0..255 are ids 0..255, end-of-text is 256: vocabulary 257, nothing to train.
std::unique_ptr<Tokenizer> makeByteTokenizer();

// Recreates a tokenizer from kind + serialize() output.
std::unique_ptr<Tokenizer> loadTokenizer(TokenizerKind kind, const std::string &serialized);

} // namespace headroom::data
