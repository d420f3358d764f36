#include "tokenizers/normalizers/normalizers.h"

#include "tokenizers/byte_level.h"
#include "tokenizers/pattern.h"

namespace headroom::tokenizers {

namespace {

template <typename Fn> std::string mapChars(const std::string &text, Fn fn) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t pos = 0; pos < text.size();) {
        fn(out, nextChar(text, pos));
    }
    return out;
}

class LowercaseNormalizer : public Normalizer {
public:
    void normalize(std::string &text) const override { text = lowercase(text); }
};

class StripNormalizer : public Normalizer {
public:
    StripNormalizer(bool left, bool right) : left_(left), right_(right) {}
    void normalize(std::string &text) const override {
        std::size_t begin = 0, end = text.size();
        if (left_) {
            while (begin < end) {
                std::size_t next = begin;
                if (!isWhitespace(nextChar(text, next))) {
                    break;
                }
                begin = next;
            }
        }
        if (right_) {
            while (end > begin) {
                std::size_t start = 0;
                if (!isWhitespace(previousChar(text, end, start))) {
                    break;
                }
                end = start;
            }
        }
        text = text.substr(begin, end - begin);
    }

private:
    bool left_, right_;
};

class StripAccentsNormalizer : public Normalizer {
public:
    void normalize(std::string &text) const override {
        text = mapChars(text, [](std::string &out, char32_t c) {
            if (!isMarkNonspacing(c)) {
                appendUtf8(out, c);
            }
        });
    }
};

class PrependNormalizer : public Normalizer {
public:
    explicit PrependNormalizer(std::string prefix) : prefix_(std::move(prefix)) {}
    void normalize(std::string &text) const override {
        if (!text.empty()) {
            text.insert(0, prefix_);
        }
    }

private:
    std::string prefix_;
};

class ReplaceNormalizer : public Normalizer {
public:
    ReplaceNormalizer(Pattern pattern, std::string content)
        : pattern_(std::move(pattern)), content_(std::move(content)) {}
    void normalize(std::string &text) const override { pattern_.replaceAll(text, content_); }

private:
    Pattern pattern_;
    std::string content_;
};

class NmtNormalizer : public Normalizer {
public:
    void normalize(std::string &text) const override {
        text = mapChars(text, [](std::string &out, char32_t c) {
            if ((c >= 0x01 && c <= 0x08) || c == 0x0B || (c >= 0x0E && c <= 0x1F) || c == 0x7F ||
                c == 0x8F || c == 0x9F) {
                return;
            }
            const bool space = c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D || c == 0x1680 ||
                               (c >= 0x200B && c <= 0x200F) || c == 0x2028 || c == 0x2029 ||
                               c == 0x2581 || c == 0xFEFF || c == 0xFFFD;
            appendUtf8(out, space ? U' ' : c);
        });
    }
};

class ByteLevelNormalizer : public Normalizer {
public:
    void normalize(std::string &text) const override { text = byteLevelEncode(text); }
};

} // namespace

void SequenceNormalizer::normalize(std::string &text) const {
    for (const auto &part : parts_) {
        part->normalize(text);
    }
}

void UnicodeNormalizer::normalize(std::string &text) const {
    text = tokenizers::normalize(text, form_);
}

void BertNormalizer::normalize(std::string &text) const {
    std::string out;
    out.reserve(text.size() + 8);
    for (std::size_t pos = 0; pos < text.size();) {
        const char32_t c = nextChar(text, pos);
        if (clean_text_) {
            if (c == 0 || c == 0xFFFD || isControl(c)) {
                continue;
            }
            if (isBertWhitespace(c)) {
                out.push_back(' ');
                continue;
            }
        }
        if (handle_chinese_chars_ && isChineseChar(c)) {
            out.push_back(' ');
            appendUtf8(out, c);
            out.push_back(' ');
            continue;
        }
        appendUtf8(out, c);
    }
    if (strip_accents_) {
        out = mapChars(tokenizers::normalize(out, NormalForm::NFD), [](std::string &o, char32_t c) {
            if (!isMarkNonspacing(c)) {
                appendUtf8(o, c);
            }
        });
    }
    if (lowercase_) {
        out = lowercase(out);
    }
    text = std::move(out);
}

std::unique_ptr<Normalizer> makeNormalizer(const JsonNode &node) {
    const std::string type = node.type();
    if (type == "Sequence") {
        const JsonNode list = node.at("normalizers");
        list.expectArray();
        std::vector<std::unique_ptr<Normalizer>> parts;
        for (std::size_t i = 0; i < list.size(); ++i) {
            parts.push_back(makeNormalizer(list.at(i)));
        }
        return std::make_unique<SequenceNormalizer>(std::move(parts));
    }
    if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") {
        const NormalForm form = type == "NFC"    ? NormalForm::NFC
                                : type == "NFD"  ? NormalForm::NFD
                                : type == "NFKC" ? NormalForm::NFKC
                                                 : NormalForm::NFKD;
        return std::make_unique<UnicodeNormalizer>(form);
    }
    if (type == "Lowercase") {
        return std::make_unique<LowercaseNormalizer>();
    }
    if (type == "Strip") {
        return std::make_unique<StripNormalizer>(node.boolean("strip_left", true),
                                                 node.boolean("strip_right", true));
    }
    if (type == "StripAccents") {
        return std::make_unique<StripAccentsNormalizer>();
    }
    if (type == "Prepend") {
        return std::make_unique<PrependNormalizer>(node.at("prepend").string());
    }
    if (type == "Replace") {
        return std::make_unique<ReplaceNormalizer>(Pattern::fromJson(node.at("pattern")),
                                                   node.at("content").string());
    }
    if (type == "BertNormalizer") {
        const bool lower = node.boolean("lowercase", true);
        return std::make_unique<BertNormalizer>(node.boolean("clean_text", true),
                                                node.boolean("handle_chinese_chars", true),
                                                node.boolean("strip_accents", lower), lower);
    }
    if (type == "Nmt") {
        return std::make_unique<NmtNormalizer>();
    }
    if (type == "ByteLevel") {
        return std::make_unique<ByteLevelNormalizer>();
    }
    if (type == "Precompiled") {
        return makePrecompiledNormalizer(node);
    }
    node.at("type").fail(
        "unknown normalizer '" + type +
        "' (expected Sequence, NFC, NFD, NFKC, NFKD, Lowercase, Strip, "
        "StripAccents, Prepend, Replace, BertNormalizer, Nmt, ByteLevel, Precompiled)");
}

} // namespace headroom::tokenizers
