// Training a SentencePiece tokenizer on the training split of a data set.
#include "data/tokenizer_training.h"

#include "chat/conversation.h"
#include "data/data_error.h"
#include "data/record_reader.h"
#include "data/split.h"
#include "tokenizers/sentencepiece/sentencepiece_tokenizer.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <stdexcept>

namespace headroom::data {
namespace {

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
            if (record_.conversation) {
                record_.text = chat::messageTexts(*record_.conversation);
            }
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
    TrainingSentences sentences(spec);
    SentencePieceTraining training =
        trainSentencePieceModel(kind, vocab_size, &TrainingSentences::next, &sentences);
    sentences.rethrowError();
    if (sentences.records() == 0) {
        throw DataError(spec.path, 0,
                        "no training text for the tokenizer: the training split holds no "
                        "non-empty records");
    }
    if (!training.trained) {
        if (const std::optional<int> needed = requiredSentencePieces(training.error)) {
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
                                 training.error);
    }
    return loadSentencePieceTokenizer(kind, training.model);
}

} // namespace headroom::data
