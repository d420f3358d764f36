// The SentencePiece module (a separate shared object, see sentencepiece_module.h for why).
// Built only by the headroom_sentencepiece target; the engine library excludes *_module.cpp.
#include "tokenizers/sentencepiece/sentencepiece_module.h"

#include <exception>
#include <memory>
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>
#include <unordered_map>

namespace headroom::data {
namespace {

class CallbackSentences final : public sentencepiece::SentenceIterator {
public:
    CallbackSentences(SentencePieceModuleApi::NextSentence next, void *context)
        : next_(next), context_(context) {
        Next();
    }
    bool done() const override { return done_; }
    void Next() override { done_ = !next_(context_, &value_); }
    const std::string &value() const override { return value_; }
    sentencepiece::util::Status status() const override { return {}; }

private:
    SentencePieceModuleApi::NextSentence next_;
    void *context_;
    std::string value_;
    bool done_ = false;
};

bool train(const std::vector<std::pair<std::string, std::string>> &options, unsigned int seed,
           SentencePieceModuleApi::NextSentence next, void *context, std::string *model,
           std::string *error) {
    try {
        const std::unordered_map<std::string, std::string> arguments(options.begin(),
                                                                     options.end());
        sentencepiece::SetRandomGeneratorSeed(seed);
        CallbackSentences sentences(next, context);
        const auto status =
            sentencepiece::SentencePieceTrainer::Train(arguments, &sentences, model);
        if (!status.ok()) {
            *error = status.ToString();
            return false;
        }
        return true;
    } catch (const std::exception &exception) {
        *error = exception.what();
    } catch (...) {
        *error = "unknown error";
    }
    return false;
}

void *load(const std::string &model, std::string *error) {
    try {
        auto processor = std::make_unique<sentencepiece::SentencePieceProcessor>();
        const auto status = processor->LoadFromSerializedProto(model);
        if (!status.ok()) {
            *error = status.ToString();
            return nullptr;
        }
        return processor.release();
    } catch (const std::exception &exception) {
        *error = exception.what();
    }
    return nullptr;
}

const sentencepiece::SentencePieceProcessor *cast(const void *processor) {
    return static_cast<const sentencepiece::SentencePieceProcessor *>(processor);
}

void release(void *processor) {
    delete static_cast<sentencepiece::SentencePieceProcessor *>(processor);
}

int pieceSize(const void *processor) {
    return cast(processor)->GetPieceSize();
}

int eosId(const void *processor) {
    return cast(processor)->eos_id();
}

bool encode(const void *processor, const std::string &text, std::vector<int> *ids,
            std::string *error) {
    try {
        const auto status = cast(processor)->Encode(text, ids);
        if (!status.ok()) {
            *error = status.ToString();
        }
        return status.ok();
    } catch (const std::exception &exception) {
        *error = exception.what();
    }
    return false;
}

bool decode(const void *processor, const std::vector<int> &ids, std::string *text,
            std::string *error) {
    try {
        const auto status = cast(processor)->Decode(ids, text);
        if (!status.ok()) {
            *error = status.ToString();
        }
        return status.ok();
    } catch (const std::exception &exception) {
        *error = exception.what();
    }
    return false;
}

void describe(const void *processor, std::vector<SentencePieceEntry> *pieces) {
    const auto *model = cast(processor);
    const int size = model->GetPieceSize();
    pieces->clear();
    pieces->reserve(static_cast<std::size_t>(size));
    for (int id = 0; id < size; ++id) {
        SentencePieceEntry entry;
        entry.piece = model->IdToPiece(id);
        if (model->IsUnknown(id)) {
            entry.kind = SentencePieceKind::Unknown;
        } else if (model->IsControl(id)) {
            entry.kind = SentencePieceKind::Control;
        } else if (model->IsByte(id)) {
            entry.kind = SentencePieceKind::Byte;
        } else if (model->IsUnused(id)) {
            entry.kind = SentencePieceKind::Unused;
        }
        pieces->push_back(std::move(entry));
    }
}

int specialId(const void *processor, SentencePieceRole role) {
    const auto *model = cast(processor);
    switch (role) {
    case SentencePieceRole::Unknown:
        return model->unk_id();
    case SentencePieceRole::Bos:
        return model->bos_id();
    case SentencePieceRole::Eos:
        return model->eos_id();
    case SentencePieceRole::Pad:
        return model->pad_id();
    }
    return -1;
}

bool encodeSpans(const void *processor, const std::string &text,
                 std::vector<SentencePieceSpan> *pieces, std::string *error) {
    try {
        const auto encoded = cast(processor)->EncodeAsImmutableProto(text);
        pieces->clear();
        pieces->reserve(encoded.pieces_size());
        for (std::size_t i = 0; i < encoded.pieces_size(); ++i) {
            const auto piece = encoded.pieces(static_cast<int>(i));
            pieces->push_back(
                SentencePieceSpan{static_cast<int>(piece.id()), piece.begin(), piece.end()});
        }
        return true;
    } catch (const std::exception &exception) {
        *error = exception.what();
    }
    return false;
}

bool decodePieces(const void *processor, const std::vector<std::string> &pieces, std::string *text,
                  std::string *error) {
    try {
        const auto status = cast(processor)->Decode(pieces, text);
        if (!status.ok()) {
            *error = status.ToString();
        }
        return status.ok();
    } catch (const std::exception &exception) {
        *error = exception.what();
    }
    return false;
}

const SentencePieceModuleApi kApi = {
    kSentencePieceModuleVersion,
    train,
    load,
    release,
    pieceSize,
    eosId,
    encode,
    decode,
    describe,
    specialId,
    encodeSpans,
    decodePieces,
};

} // namespace
} // namespace headroom::data

extern "C" __attribute__((visibility("default"))) const headroom::data::SentencePieceModuleApi *
headroom_sentencepiece_module() {
    return &headroom::data::kApi;
}
