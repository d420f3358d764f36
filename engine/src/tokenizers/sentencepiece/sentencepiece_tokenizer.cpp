// BPE and unigram tokenizers, backed by the SentencePiece module.
#include "tokenizers/sentencepiece/sentencepiece_tokenizer.h"

#include "tokenizers/sentencepiece/sentencepiece_loader.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <stdexcept>

namespace headroom::data {
namespace {

// A reservoir sample of this many sentences bounds the trainer's memory on a large corpus.
constexpr int kMaxTrainingSentences = 1000000;
constexpr unsigned int kTrainingSeed = 20240601;

class SentencePieceTokenizer final : public Tokenizer {
public:
    SentencePieceTokenizer(TokenizerKind kind, std::string serialized)
        : kind_(kind), api_(sentencePieceModule()), serialized_(std::move(serialized)) {
        std::string error;
        processor_ = api_.load(serialized_, &error);
        if (!processor_) {
            throw std::runtime_error("cannot load the " + toString(kind) + " tokenizer: " + error);
        }
        vocab_size_ = api_.pieceSize(processor_);
        if (vocab_size_ < 1 || vocab_size_ > kMaxVocabulary) {
            api_.release(processor_);
            throw std::runtime_error("the " + toString(kind) + " tokenizer has " +
                                     std::to_string(vocab_size_) + " pieces; at most " +
                                     std::to_string(kMaxVocabulary) + " are accepted");
        }
        end_of_text_ = api_.eosId(processor_);
        if (end_of_text_ < 0) {
            api_.release(processor_);
            throw std::runtime_error("the " + toString(kind) +
                                     " tokenizer has no end-of-text piece (eos)");
        }
    }
    ~SentencePieceTokenizer() override { api_.release(processor_); }
    SentencePieceTokenizer(const SentencePieceTokenizer &) = delete;
    SentencePieceTokenizer &operator=(const SentencePieceTokenizer &) = delete;

    TokenizerKind kind() const override { return kind_; }
    std::int32_t vocabSize() const override { return vocab_size_; }
    std::int32_t endOfTextId() const override { return end_of_text_; }

    std::vector<std::int32_t> encode(const std::string &utf8) const override {
        std::vector<int> ids;
        std::string error;
        if (!api_.encode(processor_, utf8, &ids, &error)) {
            throw std::runtime_error("SentencePiece cannot encode the text: " + error);
        }
        return std::vector<std::int32_t>(ids.begin(), ids.end());
    }

    std::string decode(const std::vector<std::int32_t> &ids) const override {
        for (const std::int32_t id : ids) {
            if (id < 0 || id >= vocab_size_) {
                throw std::out_of_range("token id " + std::to_string(id) +
                                        " is outside the vocabulary (0.." +
                                        std::to_string(vocab_size_ - 1) + ")");
            }
        }
        std::string text;
        std::string error;
        if (!api_.decode(processor_, std::vector<int>(ids.begin(), ids.end()), &text, &error)) {
            throw std::runtime_error("SentencePiece cannot decode the ids: " + error);
        }
        return text;
    }

    std::string serialize() const override { return serialized_; }

private:
    TokenizerKind kind_;
    const SentencePieceModuleApi &api_;
    std::string serialized_;
    void *processor_ = nullptr;
    std::int32_t vocab_size_ = 0;
    std::int32_t end_of_text_ = -1;
};

} // namespace

std::optional<int> requiredSentencePieces(const std::string &error) {
    const std::size_t at = error.find("Vocabulary size is smaller than required_chars");
    const std::size_t vs = at == std::string::npos ? at : error.find(" vs ", at);
    if (vs == std::string::npos) {
        return std::nullopt;
    }
    try {
        return std::stoi(error.substr(vs + 4));
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

SentencePieceTraining trainSentencePieceModel(TokenizerKind kind, std::int32_t vocab_size,
                                              NextSentence next, void *context) {
    const SentencePieceModuleApi &api = sentencePieceModule();
    const std::vector<std::pair<std::string, std::string>> options = {
        {"model_type", kind == TokenizerKind::Bpe ? "bpe" : "unigram"},
        {"vocab_size", std::to_string(vocab_size)},
        {"hard_vocab_limit", "false"}, // a small corpus gets a smaller vocabulary, not an error
        {"byte_fallback", "true"},     // any text round-trips, even unseen characters
        {"character_coverage", "0.9995"},
        {"normalization_rule_name", "identity"}, // decode(encode(s)) == s
        {"remove_extra_whitespaces", "false"},
        {"max_sentence_length", std::to_string(kMaxSentenceBytes)},
        {"input_sentence_size", std::to_string(kMaxTrainingSentences)},
        {"shuffle_input_sentence", "true"},
        {"num_threads", "1"}, // deterministic
        {"unk_id", "0"},
        {"bos_id", "1"},
        {"eos_id", "2"},
        {"pad_id", "-1"},
        {"minloglevel", "2"},
    };
    SentencePieceTraining result;
    result.trained = api.train(options, kTrainingSeed, next, context, &result.model, &result.error);
    return result;
}

std::unique_ptr<Tokenizer> loadSentencePieceTokenizer(TokenizerKind kind,
                                                      const std::string &serialized) {
    return std::make_unique<SentencePieceTokenizer>(kind, serialized);
}

} // namespace headroom::data
