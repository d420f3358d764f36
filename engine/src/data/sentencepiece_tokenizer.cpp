// BPE and unigram tokenizers, backed by the SentencePiece module.
#include "data/sentencepiece_tokenizer.h"

#include "data/data_error.h"
#include "data/record_reader.h"
#include "data/sentencepiece_loader.h"
#include "data/split.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <stdexcept>

namespace headroom::data {
namespace {

// SentencePiece skips sentences longer than its max_sentence_length: longer records are fed in
// pieces of at most this many bytes instead.
constexpr std::size_t kMaxSentenceBytes = 8192;
// A reservoir sample of this many sentences bounds the trainer's memory on a large corpus.
constexpr int kMaxTrainingSentences = 1000000;
constexpr unsigned int kTrainingSeed = 20240601;
// Pieces every trained model holds whatever the text: unknown, begin and end of text, and the
// 256 bytes that byte fallback encodes unseen characters with.
constexpr int kFixedPieces = 3 + 256;

// How many pieces SentencePiece needs when it refuses a vocabulary smaller than the fixed pieces
// plus the characters of the text: "Vocabulary size is smaller than required_chars. 64 vs 283."
std::optional<int> requiredPieces(const std::string &error) {
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

// The non-empty texts of the training split, as training sentences. A data error is kept and
// rethrown after training, never thrown through SentencePiece.
class TrainingSentences {
public:
    explicit TrainingSentences(const DataSpec &spec) : spec_(spec), reader_(spec, true) {}

    static bool next(void *context, std::string *sentence) {
        auto *self = static_cast<TrainingSentences *>(context);
        try {
            return self->advance(*sentence);
        } catch (...) {
            self->error_ = std::current_exception();
            return false;
        }
    }

    void rethrowError() const {
        if (error_) {
            std::rethrow_exception(error_);
        }
    }
    std::int64_t records() const { return records_; }

private:
    bool advance(std::string &sentence) {
        while (cut_ >= record_.text.size()) {
            if (!reader_.next(record_)) {
                return false;
            }
            cut_ = 0;
            if (isValidationRecord(spec_.split_seed, record_.ordinal, spec_.validation_fraction)) {
                record_.text.clear();
            } else if (!record_.text.empty()) {
                ++records_;
            }
        }
        std::size_t take = std::min(kMaxSentenceBytes, record_.text.size() - cut_);
        // Cut on a character boundary (continuation bytes are 10xxxxxx).
        while (cut_ + take < record_.text.size() && take > 1 &&
               (static_cast<unsigned char>(record_.text[cut_ + take]) & 0xC0) == 0x80) {
            --take;
        }
        sentence.assign(record_.text, cut_, take);
        cut_ += take;
        return true;
    }

    DataSpec spec_;
    RecordReader reader_;
    Record record_;
    std::size_t cut_ = 0;
    std::int64_t records_ = 0;
    std::exception_ptr error_;
};

} // namespace

std::unique_ptr<Tokenizer> trainSentencePiece(const DataSpec &spec, TokenizerKind kind,
                                              std::int32_t vocab_size) {
    if (kind == TokenizerKind::Byte) {
        throw std::invalid_argument("the byte tokenizer needs no training");
    }
    if (vocab_size < 1) {
        throw std::invalid_argument("the vocabulary size must be positive");
    }
    const SentencePieceModuleApi &api = sentencePieceModule();
    TrainingSentences sentences(spec);
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
    std::string model;
    std::string error;
    const bool trained =
        api.train(options, kTrainingSeed, &TrainingSentences::next, &sentences, &model, &error);
    sentences.rethrowError();
    if (sentences.records() == 0) {
        throw DataError(spec.path, 0,
                        "no training text for the tokenizer: the training split holds no "
                        "non-empty records");
    }
    if (!trained) {
        if (const std::optional<int> needed = requiredPieces(error)) {
            throw DataError(
                spec.path, 0,
                "tokenizer.vocab_size=" + std::to_string(vocab_size) +
                    " is too small for this text: a " + toString(kind) +
                    " tokenizer of it needs at least " + std::to_string(*needed) + " pieces (" +
                    std::to_string(kFixedPieces) +
                    " for unknown, begin and end of text and the 256 bytes unseen characters "
                    "fall back to, and " +
                    std::to_string(std::max(0, *needed - kFixedPieces)) +
                    " for the characters of the training text): set tokenizer.vocab_size to " +
                    std::to_string(*needed) + " or more");
        }
        throw std::runtime_error("SentencePiece could not train a " + toString(kind) +
                                 " tokenizer with vocabulary " + std::to_string(vocab_size) + ": " +
                                 error);
    }
    return std::make_unique<SentencePieceTokenizer>(kind, std::move(model));
}

std::unique_ptr<Tokenizer> loadSentencePieceTokenizer(TokenizerKind kind,
                                                      const std::string &serialized) {
    return std::make_unique<SentencePieceTokenizer>(kind, serialized);
}

} // namespace headroom::data
