#pragma once

// The interface between the engine and the SentencePiece module.
//
// Why a module: Debian's libsentencepiece bundles protobuf-lite 3.14 and exports its symbols.
// In one symbol scope with LibTorch's libprotobuf 3.21 a program crashes before main() (or
// aborts on the protobuf version check, depending on load order). The engine therefore never
// links SentencePiece; it loads this module with RTLD_LOCAL | RTLD_DEEPBIND, which keeps each
// protobuf bound to its own users. Both sides are built by the same compiler from this tree,
// so the table may use standard library types; no exception crosses it.

#include <string>
#include <utility>
#include <vector>

namespace headroom::data {

enum class SentencePieceKind { Normal, Unknown, Control, Byte, Unused };
enum class SentencePieceRole { Unknown, Bos, Eos, Pad };

struct SentencePieceEntry {
    std::string piece;
    SentencePieceKind kind = SentencePieceKind::Normal;
};

struct SentencePieceSpan {
    int id = 0;
    unsigned begin = 0;
    unsigned end = 0;
};

struct SentencePieceModuleApi {
    int version;
    // Supplies the next training sentence; false at the end. Must not throw.
    using NextSentence = bool (*)(void *context, std::string *sentence);
    // All functions return false and describe the failure in *error when they fail.
    bool (*train)(const std::vector<std::pair<std::string, std::string>> &options,
                  unsigned int seed, NextSentence next, void *context, std::string *model,
                  std::string *error);
    void *(*load)(const std::string &model, std::string *error); // nullptr on failure
    void (*release)(void *processor);
    int (*pieceSize)(const void *processor);
    int (*eosId)(const void *processor);
    bool (*encode)(const void *processor, const std::string &text, std::vector<int> *ids,
                   std::string *error);
    bool (*decode)(const void *processor, const std::vector<int> &ids, std::string *text,
                   std::string *error);

    // Version 2: what reading a pretrained model's tokenizer.model needs.
    // Every piece in id order, with its kind.
    void (*describe)(const void *processor, std::vector<SentencePieceEntry> *pieces);
    int (*specialId)(const void *processor, SentencePieceRole role); // -1 when the model has none
    // Pieces of `text` with the byte span [begin, end) of the input each covers.
    bool (*encodeSpans)(const void *processor, const std::string &text,
                        std::vector<SentencePieceSpan> *pieces, std::string *error);
    bool (*decodePieces)(const void *processor, const std::vector<std::string> &pieces,
                         std::string *text, std::string *error);
};

constexpr int kSentencePieceModuleVersion = 2;
// The one symbol the module exports: extern "C" const SentencePieceModuleApi *NAME();
constexpr const char *kSentencePieceModuleEntry = "headroom_sentencepiece_module";

} // namespace headroom::data
