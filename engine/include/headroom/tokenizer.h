#pragma once

// Tokenizers that give exactly the ids of Hugging Face `tokenizers` for the same files and
// text: tokenizer.json (GPT-2, Llama 3, Qwen2/3, Mistral/Llama 2, BERT, ...), GPT-2 style
// vocab.json + merges.txt, BERT vocab.txt; SentencePiece tokenizer.model as transformers' slow
// tokenizers (LlamaTokenizer) use it. Plain C++: no Torch, no JSON library in this header.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace headroom {

// A tokenizer file that cannot be read or is not supported. The message names the file, the
// JSON path when there is one (`tokenizer.json: /pre_tokenizer/type: unknown pre-tokenizer
// 'Foo'`) and what was expected.
class TokenizerError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Text that is not valid UTF-8, refused with the offset of the first bad byte (the reference
// takes Rust strings, which cannot hold invalid UTF-8).
class InvalidUtf8Error : public TokenizerError {
public:
    InvalidUtf8Error(const std::string &message, std::size_t offset)
        : TokenizerError(message), offset_(offset) {}
    std::size_t offset() const { return offset_; }

private:
    std::size_t offset_;
};

struct TokenizedText {
    std::vector<std::int32_t> ids;
    std::vector<std::string> pieces; // the token strings, as the vocabulary spells them
    // Byte offsets [begin, end) into the input text per token. Exact when no normalizer
    // rewrote the text; otherwise the span of the word the token came from. Special tokens
    // added by the post-processor get (0, 0).
    std::vector<std::pair<std::size_t, std::size_t>> offsets;
    std::vector<bool> special; // true for added special tokens and post-processor specials
};

class HfTokenizer {
public:
    // `path`: a folder holding tokenizer.json, or vocab.json + merges.txt, or vocab.txt, or
    // tokenizer.model (in that order of preference); or the path of a tokenizer.json,
    // vocab.txt or *.model file. Throws TokenizerError.
    static HfTokenizer load(const std::string &path);
    // The text of a tokenizer.json; `name` is used in error messages.
    static HfTokenizer fromJson(const std::string &json,
                                const std::string &name = "tokenizer.json");

    HfTokenizer(HfTokenizer &&) noexcept;
    HfTokenizer &operator=(HfTokenizer &&) noexcept;
    ~HfTokenizer();

    // Thread-safe (const). Throws InvalidUtf8Error for text that is not UTF-8.
    TokenizedText encode(const std::string &text, bool add_special_tokens = true) const;
    std::vector<std::int32_t> encodeIds(const std::string &text,
                                        bool add_special_tokens = true) const;
    // Unknown ids are skipped, as the reference does.
    std::string decode(const std::vector<std::int32_t> &ids,
                       bool skip_special_tokens = false) const;

    // Model vocabulary plus added tokens (the reference's get_vocab_size(true)).
    std::int32_t vocabSize() const;
    std::optional<std::string> idToToken(std::int32_t id) const;
    std::optional<std::int32_t> tokenToId(const std::string &token) const;
    bool isSpecial(std::int32_t id) const;
    // Where it was loaded from, for messages.
    const std::string &source() const;

    struct Impl;

private:
    explicit HfTokenizer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace headroom
