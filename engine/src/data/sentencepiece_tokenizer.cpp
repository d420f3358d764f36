// BPE and unigram tokenizers on top of libsentencepiece, compiled only where it is available.
#include "data/sentencepiece_tokenizer.h"

#include "data/data_error.h"
#include "data/record_reader.h"
#include "data/split.h"

#include <stdexcept>

#ifdef HEADROOM_WITH_SENTENCEPIECE
#include <exception>
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>
#include <unordered_map>
#endif

namespace headroom::data {
namespace {

const char *const kNoSentencePiece =
    "this build of Headroom has no SentencePiece, so BPE and unigram tokenizers are "
    "unavailable; use tokenizer=byte";

#ifdef HEADROOM_WITH_SENTENCEPIECE

// SentencePiece skips sentences longer than its max_sentence_length: longer records are fed in
// pieces of at most this many bytes instead.
constexpr std::size_t kMaxSentenceBytes = 8192;
// A reservoir sample of this many sentences bounds the trainer's memory on a large corpus.
constexpr int kMaxTrainingSentences = 1000000;
constexpr unsigned int kTrainingSeed = 20240601;

class SentencePieceTokenizer final : public Tokenizer {
public:
    SentencePieceTokenizer(TokenizerKind kind, const std::string &serialized) : kind_(kind) {
        const auto status = processor_.LoadFromSerializedProto(serialized);
        if (!status.ok()) {
            throw std::runtime_error("cannot load the " + toString(kind) +
                                     " tokenizer: " + status.ToString());
        }
        if (processor_.eos_id() < 0) {
            throw std::runtime_error("the " + toString(kind) +
                                     " tokenizer has no end-of-text piece (eos)");
        }
    }

    TokenizerKind kind() const override { return kind_; }
    std::int32_t vocabSize() const override { return processor_.GetPieceSize(); }
    std::int32_t endOfTextId() const override { return processor_.eos_id(); }

    std::vector<std::int32_t> encode(const std::string &utf8) const override {
        std::vector<int> ids;
        const auto status = processor_.Encode(utf8, &ids);
        if (!status.ok()) {
            throw std::runtime_error("SentencePiece cannot encode the text: " + status.ToString());
        }
        return std::vector<std::int32_t>(ids.begin(), ids.end());
    }

    std::string decode(const std::vector<std::int32_t> &ids) const override {
        const int size = processor_.GetPieceSize();
        for (const std::int32_t id : ids) {
            if (id < 0 || id >= size) {
                throw std::out_of_range("token id " + std::to_string(id) +
                                        " is outside the vocabulary (0.." +
                                        std::to_string(size - 1) + ")");
            }
        }
        std::string text;
        const auto status = processor_.Decode(std::vector<int>(ids.begin(), ids.end()), &text);
        if (!status.ok()) {
            throw std::runtime_error("SentencePiece cannot decode the ids: " + status.ToString());
        }
        return text;
    }

    std::string serialize() const override { return processor_.serialized_model_proto(); }

private:
    TokenizerKind kind_;
    sentencepiece::SentencePieceProcessor processor_;
};

// Feeds the non-empty texts of the training split to the trainer. Data errors are kept and
// rethrown after training returns rather than thrown through SentencePiece.
class TrainingSentences final : public sentencepiece::SentenceIterator {
public:
    explicit TrainingSentences(const DataSpec &spec) : spec_(spec), reader_(spec, true) { Next(); }

    bool done() const override { return done_; }
    const std::string &value() const override { return value_; }
    sentencepiece::util::Status status() const override { return {}; }

    void Next() override {
        try {
            advance();
        } catch (...) {
            error_ = std::current_exception();
            done_ = true;
        }
    }

    void rethrowError() const {
        if (error_) {
            std::rethrow_exception(error_);
        }
    }
    std::int64_t records() const { return records_; }

private:
    void advance() {
        while (cut_ >= record_.text.size()) {
            if (!reader_.next(record_)) {
                done_ = true;
                return;
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
        value_.assign(record_.text, cut_, take);
        cut_ += take;
    }

    DataSpec spec_;
    RecordReader reader_;
    Record record_;
    std::size_t cut_ = 0;
    std::string value_;
    bool done_ = false;
    std::int64_t records_ = 0;
    std::exception_ptr error_;
};

#endif

} // namespace

#ifdef HEADROOM_WITH_SENTENCEPIECE

std::unique_ptr<Tokenizer> trainSentencePiece(const DataSpec &spec, TokenizerKind kind,
                                              std::int32_t vocab_size) {
    if (kind == TokenizerKind::Byte) {
        throw std::invalid_argument("the byte tokenizer needs no training");
    }
    if (vocab_size < 1) {
        throw std::invalid_argument("the vocabulary size must be positive");
    }
    TrainingSentences sentences(spec);
    const std::unordered_map<std::string, std::string> options = {
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
    sentencepiece::SetRandomGeneratorSeed(kTrainingSeed);
    std::string model;
    const auto status = sentencepiece::SentencePieceTrainer::Train(options, &sentences, &model);
    sentences.rethrowError();
    if (sentences.records() == 0) {
        throw DataError(spec.path, 0,
                        "no training text for the tokenizer: the training split holds no "
                        "non-empty records");
    }
    if (!status.ok()) {
        throw std::runtime_error("SentencePiece could not train a " + toString(kind) +
                                 " tokenizer with vocabulary " + std::to_string(vocab_size) + ": " +
                                 status.ToString());
    }
    return std::make_unique<SentencePieceTokenizer>(kind, model);
}

std::unique_ptr<Tokenizer> loadSentencePieceTokenizer(TokenizerKind kind,
                                                      const std::string &serialized) {
    return std::make_unique<SentencePieceTokenizer>(kind, serialized);
}

#else

std::unique_ptr<Tokenizer> trainSentencePiece(const DataSpec &, TokenizerKind kind, std::int32_t) {
    if (kind == TokenizerKind::Byte) {
        throw std::invalid_argument("the byte tokenizer needs no training");
    }
    throw std::runtime_error(kNoSentencePiece);
}

std::unique_ptr<Tokenizer> loadSentencePieceTokenizer(TokenizerKind, const std::string &) {
    throw std::runtime_error(kNoSentencePiece);
}

#endif

} // namespace headroom::data
