// A tokenizer as llama.cpp's "gpt2" (byte-level BPE) tokenizer reads it from tokenizer.ggml.*
// keys: tokens by id, token types, merges in rank order, the pre-tokenizer's name, special ids
// and the chat template. Only what llama.cpp tokenizes the same way is accepted: anything else
// is refused with what differs, rather than written as a file that tokenizes differently.
// Torch-free.
#pragma once

#include "gguf/gguf_writer.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom::gguf {

// llama_token_type values of tokenizer.ggml.token_type.
enum class TokenType : std::int32_t {
    Normal = 1,
    Unknown = 2,
    Control = 3,
    UserDefined = 4,
    Unused = 5,
    Byte = 6,
};

struct Vocabulary {
    std::string model = "gpt2";
    std::string pre; // llama.cpp's pre-tokenizer name: "gpt-2", "llama-bpe", "qwen2"
    std::vector<std::string> tokens;
    std::vector<std::int32_t> token_types;
    std::vector<std::string> merges; // "a b", rank order
    std::optional<std::int64_t> bos, eos, eot, pad, unk;
    bool add_bos = false, add_eos = false;
    std::optional<std::string> chat_template;
    // The Hugging Face tokenizer NFC-normalizes text, which llama.cpp does not: text that is
    // not already composed (NFC) tokenizes differently.
    bool normalizes_nfc = false;
};

// The vocabulary of a Hugging Face tokenizer.json (a byte-level BPE), padded to the model's
// vocab_size with "[PADn]" tokens of type Unused as convert_hf_to_gguf pads it. The BOS/EOS a
// TemplateProcessing post-processor puts around a text set add_bos/add_eos and those ids; other
// special ids and the template are left for the caller. Throws GgufError naming the file and
// what llama.cpp cannot reproduce: another model type (WordPiece, Unigram, SentencePiece-style
// BPE), a normalizer other than NFC, a prefix space, a pre-tokenizer regex llama.cpp has no
// name for, ids beyond vocab_size, a post-processor that adds more than a BOS and an EOS.
Vocabulary vocabularyFromTokenizerJson(const std::string &json_text, const std::string &source,
                                       std::int64_t vocab_size);

// Headroom's byte tokenizer (byte b is id b, end-of-text 256) as a byte-level BPE without merges:
// every byte its own token whatever the pre-tokenizer splits. End-of-text is BOS and EOS.
Vocabulary byteTokenizerVocabulary(std::int64_t vocab_size);

// The pre-tokenizer name for a tokenizer.json's "pre_tokenizer" (JSON text), or a GgufError.
std::string preTokenizerName(const std::string &pre_tokenizer_json, const std::string &source);

// tokenizer.ggml.* and tokenizer.chat_template.
void addVocabulary(const Vocabulary &vocabulary, Metadata &metadata);

} // namespace headroom::gguf
