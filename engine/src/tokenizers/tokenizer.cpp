#include "tokenizers/tokenizer.h"

#include "tokenizers/sentencepiece/sentencepiece_tokenizer.h"

#include <stdexcept>

namespace headroom::data {
namespace {

constexpr std::int32_t kByteEndOfText = 256;

class ByteTokenizer final : public Tokenizer {
public:
    TokenizerKind kind() const override { return TokenizerKind::Byte; }
    std::int32_t vocabSize() const override { return kByteEndOfText + 1; }
    std::int32_t endOfTextId() const override { return kByteEndOfText; }

    std::vector<std::int32_t> encode(const std::string &utf8) const override {
        std::vector<std::int32_t> ids;
        ids.reserve(utf8.size());
        for (const char c : utf8) {
            ids.push_back(static_cast<unsigned char>(c));
        }
        return ids;
    }

    std::string decode(const std::vector<std::int32_t> &ids) const override {
        std::string text;
        text.reserve(ids.size());
        for (const std::int32_t id : ids) {
            if (id == kByteEndOfText) {
                continue;
            }
            if (id < 0 || id > kByteEndOfText) {
                throw std::out_of_range("token id " + std::to_string(id) +
                                        " is outside the byte vocabulary (0..256)");
            }
            text.push_back(static_cast<char>(static_cast<unsigned char>(id)));
        }
        return text;
    }

    std::string serialize() const override { return {}; }
};

} // namespace

TokenizerKind parseTokenizerKind(const std::string &text) {
    if (text == "byte") {
        return TokenizerKind::Byte;
    }
    if (text == "bpe") {
        return TokenizerKind::Bpe;
    }
    if (text == "unigram") {
        return TokenizerKind::Unigram;
    }
    throw std::invalid_argument("unknown tokenizer '" + text + "' (accepted: byte, bpe, unigram)");
}

std::string toString(TokenizerKind kind) {
    switch (kind) {
    case TokenizerKind::Byte:
        return "byte";
    case TokenizerKind::Bpe:
        return "bpe";
    case TokenizerKind::Unigram:
        return "unigram";
    }
    return "byte";
}

std::unique_ptr<Tokenizer> makeByteTokenizer() {
    return std::make_unique<ByteTokenizer>();
}

std::unique_ptr<Tokenizer> loadTokenizer(TokenizerKind kind, const std::string &serialized) {
    if (kind == TokenizerKind::Byte) {
        return makeByteTokenizer();
    }
    if (serialized.size() > kMaxTokenizerBytes) {
        throw std::runtime_error("the stored " + toString(kind) + " tokenizer is " +
                                 std::to_string(serialized.size()) +
                                 " bytes, over the limit of 64 MiB: the project is damaged");
    }
    return loadSentencePieceTokenizer(kind, serialized);
}

} // namespace headroom::data
