#include "tokenizers/decoders/decoders.h"

#include "tokenizers/byte_level.h"
#include "tokenizers/pattern.h"
#include "tokenizers/pre_tokenizers/pre_tokenizers.h"
#include "tokenizers/regex.h"
#include "tokenizers/unicode.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace headroom::tokenizers {

std::string Decoder::decode(std::vector<std::string> tokens) const {
    decodeChain(tokens);
    std::string out;
    for (const std::string &token : tokens) {
        out += token;
    }
    return out;
}

namespace {

void replaceAll(std::string &text, const std::string &from, const std::string &to) {
    if (from.empty()) {
        return;
    }
    std::string out;
    std::size_t previous = 0;
    for (std::size_t pos = text.find(from); pos != std::string::npos;
         pos = text.find(from, pos + from.size())) {
        out.append(text, previous, pos - previous);
        out += to;
        previous = pos + from.size();
    }
    if (previous == 0) {
        return;
    }
    out.append(text, previous, std::string::npos);
    text = std::move(out);
}

std::string cleanup(std::string text) {
    static const std::pair<const char *, const char *> rules[] = {
        {" .", "."},   {" ?", "?"},     {" !", "!"},    {" ,", ","},
        {" ' ", "'"},  {" n't", "n't"}, {" 'm", "'m"},  {" do not", " don't"},
        {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    for (const auto &[from, to] : rules) {
        replaceAll(text, from, to);
    }
    return text;
}

class ByteLevelDecoder : public Decoder {
public:
    void decodeChain(std::vector<std::string> &tokens) const override {
        std::string bytes;
        for (const std::string &token : tokens) {
            if (!byteLevelDecode(token, bytes)) {
                bytes += token;
            }
        }
        tokens.assign(1, utf8Lossy(bytes));
    }
};

class ByteFallbackDecoder : public Decoder {
public:
    void decodeChain(std::vector<std::string> &tokens) const override {
        std::vector<std::string> out;
        std::string pending;
        auto flush = [&] {
            if (pending.empty()) {
                return;
            }
            if (findInvalidUtf8(pending) == pending.size()) {
                out.push_back(pending);
            } else {
                for (std::size_t i = 0; i < pending.size(); ++i) {
                    out.emplace_back("\xEF\xBF\xBD");
                }
            }
            pending.clear();
        };
        for (std::string &token : tokens) {
            if (token.size() == 6 && token.compare(0, 3, "<0x") == 0 && token[5] == '>' &&
                std::isxdigit(static_cast<unsigned char>(token[3])) &&
                std::isxdigit(static_cast<unsigned char>(token[4]))) {
                pending.push_back(static_cast<char>(std::stoi(token.substr(3, 2), nullptr, 16)));
            } else {
                flush();
                out.push_back(std::move(token));
            }
        }
        flush();
        tokens = std::move(out);
    }
};

class FuseDecoder : public Decoder {
public:
    void decodeChain(std::vector<std::string> &tokens) const override {
        std::string all;
        for (const std::string &token : tokens) {
            all += token;
        }
        tokens.assign(1, std::move(all));
    }
};

class StripDecoder : public Decoder {
public:
    StripDecoder(char32_t content, std::size_t start, std::size_t stop)
        : content_(content), start_(start), stop_(stop) {}
    void decodeChain(std::vector<std::string> &tokens) const override {
        for (std::string &token : tokens) {
            std::vector<std::pair<std::size_t, char32_t>> chars; // (byte offset, char)
            for (std::size_t pos = 0; pos < token.size();) {
                const std::size_t at = pos;
                chars.emplace_back(at, nextChar(token, pos));
            }
            std::size_t start_cut = 0;
            for (std::size_t i = 0;
                 i < std::min(start_, chars.size()) && chars[i].second == content_; ++i) {
                start_cut = i + 1;
            }
            std::size_t stop_cut = chars.size();
            for (std::size_t i = 0; i < std::min(stop_, chars.size()); ++i) {
                const std::size_t index = chars.size() - i - 1;
                if (chars[index].second != content_) {
                    break;
                }
                stop_cut = index;
            }
            if (stop_cut <= start_cut) {
                token.clear();
                continue;
            }
            const std::size_t from =
                start_cut < chars.size() ? chars[start_cut].first : token.size();
            const std::size_t to = stop_cut < chars.size() ? chars[stop_cut].first : token.size();
            token = token.substr(from, to - from);
        }
    }

private:
    char32_t content_;
    std::size_t start_, stop_;
};

class ReplaceDecoder : public Decoder {
public:
    ReplaceDecoder(Pattern pattern, std::string content)
        : pattern_(std::move(pattern)), content_(std::move(content)) {}
    void decodeChain(std::vector<std::string> &tokens) const override {
        for (std::string &token : tokens) {
            pattern_.replaceAll(token, content_);
        }
    }

private:
    Pattern pattern_;
    std::string content_;
};

class MetaspaceDecoder : public Decoder {
public:
    MetaspaceDecoder(char32_t replacement, bool prepend) : prepend_(prepend) {
        appendUtf8(replacement_, replacement);
    }
    void decodeChain(std::vector<std::string> &tokens) const override {
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            replaceAll(tokens[i], replacement_, i == 0 && prepend_ ? "" : " ");
        }
    }

private:
    std::string replacement_;
    bool prepend_;
};

class WordPieceDecoder : public Decoder {
public:
    WordPieceDecoder(std::string prefix, bool cleanup)
        : prefix_(std::move(prefix)), cleanup_(cleanup) {}
    void decodeChain(std::vector<std::string> &tokens) const override {
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            std::string &token = tokens[i];
            if (i != 0) {
                if (token.compare(0, prefix_.size(), prefix_) == 0) {
                    token.erase(0, prefix_.size());
                } else {
                    token.insert(0, " ");
                }
            }
            if (cleanup_) {
                token = cleanup(token);
            }
        }
    }

private:
    std::string prefix_;
    bool cleanup_;
};

class BpeDecoder : public Decoder {
public:
    explicit BpeDecoder(std::string suffix) : suffix_(std::move(suffix)) {}
    void decodeChain(std::vector<std::string> &tokens) const override {
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            replaceAll(tokens[i], suffix_, i + 1 == tokens.size() ? "" : " ");
        }
    }

private:
    std::string suffix_;
};

class CtcDecoder : public Decoder {
public:
    CtcDecoder(std::string pad, std::string delimiter, bool cleanup)
        : pad_(std::move(pad)), delimiter_(std::move(delimiter)), cleanup_(cleanup) {}
    void decodeChain(std::vector<std::string> &tokens) const override {
        tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
        std::vector<std::string> out;
        for (std::string token : tokens) {
            replaceAll(token, pad_, "");
            if (cleanup_) {
                token = cleanup(token);
                replaceAll(token, delimiter_, " ");
            }
            if (!token.empty()) {
                out.push_back(std::move(token));
            }
        }
        tokens = std::move(out);
    }

private:
    std::string pad_, delimiter_;
    bool cleanup_;
};

class SequenceDecoder : public Decoder {
public:
    explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> parts)
        : parts_(std::move(parts)) {}
    void decodeChain(std::vector<std::string> &tokens) const override {
        for (const auto &part : parts_) {
            part->decodeChain(tokens);
        }
    }

private:
    std::vector<std::unique_ptr<Decoder>> parts_;
};

char32_t oneChar(const JsonNode &node) {
    const std::string text = node.string();
    std::size_t pos = 0;
    if (text.empty() || findInvalidUtf8(text) != text.size()) {
        node.fail("expected one character");
    }
    const char32_t c = nextChar(text, pos);
    if (pos != text.size()) {
        node.fail("expected one character, found '" + text + "'");
    }
    return c;
}

std::size_t count(const JsonNode &node, const char *key) {
    const std::int64_t value = node.integer(key, 0);
    if (value < 0) {
        node.at(key).fail("expected a non-negative integer");
    }
    return static_cast<std::size_t>(value);
}

} // namespace

std::unique_ptr<Decoder> makeByteLevelDecoder() {
    return std::make_unique<ByteLevelDecoder>();
}

std::unique_ptr<Decoder> makeWordPieceDecoder(std::string prefix, bool cleanup) {
    return std::make_unique<WordPieceDecoder>(std::move(prefix), cleanup);
}

std::unique_ptr<Decoder> makeDecoder(const JsonNode &node) {
    const std::string type = node.type();
    if (type == "Sequence") {
        const JsonNode list = node.at("decoders");
        list.expectArray();
        std::vector<std::unique_ptr<Decoder>> parts;
        for (std::size_t i = 0; i < list.size(); ++i) {
            parts.push_back(makeDecoder(list.at(i)));
        }
        return std::make_unique<SequenceDecoder>(std::move(parts));
    }
    if (type == "ByteLevel") {
        return makeByteLevelDecoder();
    }
    if (type == "ByteFallback") {
        return std::make_unique<ByteFallbackDecoder>();
    }
    if (type == "Fuse") {
        return std::make_unique<FuseDecoder>();
    }
    if (type == "Strip") {
        return std::make_unique<StripDecoder>(oneChar(node.at("content")), count(node, "start"),
                                              count(node, "stop"));
    }
    if (type == "Replace") {
        return std::make_unique<ReplaceDecoder>(Pattern::fromJson(node.at("pattern")),
                                                node.at("content").string());
    }
    if (type == "Metaspace") {
        const char32_t replacement =
            node.has("replacement") ? oneChar(node.at("replacement")) : U'\u2581';
        bool prepend = node.boolean("add_prefix_space", true);
        if (node.has("prepend_scheme")) {
            prepend = node.at("prepend_scheme").string() != "never";
        }
        return std::make_unique<MetaspaceDecoder>(replacement, prepend);
    }
    if (type == "WordPiece") {
        return makeWordPieceDecoder(node.string("prefix", "##"), node.boolean("cleanup", true));
    }
    if (type == "BPEDecoder") {
        return std::make_unique<BpeDecoder>(node.string("suffix", "</w>"));
    }
    if (type == "CTC") {
        return std::make_unique<CtcDecoder>(node.string("pad_token", "<pad>"),
                                            node.string("word_delimiter_token", "|"),
                                            node.boolean("cleanup", true));
    }
    node.at("type").fail("unknown decoder '" + type +
                         "' (expected Sequence, ByteLevel, ByteFallback, Fuse, Strip, Replace, "
                         "Metaspace, WordPiece, BPEDecoder, CTC)");
}

} // namespace headroom::tokenizers
