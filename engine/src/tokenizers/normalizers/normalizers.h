#pragma once

// Normalizers of the reference library: they rewrite the text between added tokens before it
// is split. Each works on a whole string.

#include "tokenizers/json_reader.h"
#include "tokenizers/regex.h"
#include "tokenizers/unicode.h"

#include <memory>
#include <string>
#include <vector>

namespace headroom::tokenizers {

class Normalizer {
public:
    virtual ~Normalizer() = default;
    virtual void normalize(std::string &text) const = 0;
};

// From tokenizer.json's "normalizer" value (not null). Throws TokenizerError naming the path.
std::unique_ptr<Normalizer> makeNormalizer(const JsonNode &node);
// SentencePiece's "Precompiled" (precompiled.cpp); refuses a malformed precompiled_charsmap.
std::unique_ptr<Normalizer> makePrecompiledNormalizer(const JsonNode &node);

class SequenceNormalizer : public Normalizer {
public:
    explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> parts)
        : parts_(std::move(parts)) {}
    void normalize(std::string &text) const override;

private:
    std::vector<std::unique_ptr<Normalizer>> parts_;
};

class UnicodeNormalizer : public Normalizer {
public:
    explicit UnicodeNormalizer(NormalForm form) : form_(form) {}
    void normalize(std::string &text) const override;

private:
    NormalForm form_;
};

class BertNormalizer : public Normalizer {
public:
    BertNormalizer(bool clean_text, bool handle_chinese_chars, bool strip_accents, bool lowercase)
        : clean_text_(clean_text), handle_chinese_chars_(handle_chinese_chars),
          strip_accents_(strip_accents), lowercase_(lowercase) {}
    void normalize(std::string &text) const override;

private:
    bool clean_text_, handle_chinese_chars_, strip_accents_, lowercase_;
};

} // namespace headroom::tokenizers
