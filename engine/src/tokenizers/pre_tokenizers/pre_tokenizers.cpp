#include "tokenizers/pre_tokenizers/pre_tokenizers.h"

#include "tokenizers/byte_level.h"
#include "tokenizers/pattern.h"
#include "tokenizers/unicode.h"

#include <functional>

namespace headroom::tokenizers {

void PreTokenizer::preTokenize(Pieces &pieces) const {
    Pieces out;
    out.reserve(pieces.size() * 2);
    for (Piece &piece : pieces) {
        if (piece.added_id >= 0) {
            out.push_back(std::move(piece));
        } else {
            split(piece, out);
        }
    }
    pieces = std::move(out);
}

namespace {

// Each character for which `predicate` holds is a match of its own.
template <typename Predicate>
void charSpans(std::string_view text, Predicate predicate, std::vector<Span> &out) {
    std::vector<std::pair<std::size_t, std::size_t>> matches;
    for (std::size_t pos = 0; pos < text.size();) {
        const std::size_t start = pos;
        if (predicate(nextChar(text, pos))) {
            matches.emplace_back(start, pos);
        }
    }
    matchesToSpans(text, matches, out);
}

template <typename Predicate>
void splitOnChars(const Piece &piece, Predicate predicate, SplitBehavior behavior, Pieces &out) {
    std::vector<Span> spans;
    charSpans(piece.text, predicate, spans);
    splitPiece(piece, spans, behavior, out);
}

SplitBehavior parseBehavior(const JsonNode &node) {
    const std::string name = node.string();
    if (name == "Removed") {
        return SplitBehavior::Removed;
    }
    if (name == "Isolated") {
        return SplitBehavior::Isolated;
    }
    if (name == "MergedWithPrevious") {
        return SplitBehavior::MergedWithPrevious;
    }
    if (name == "MergedWithNext") {
        return SplitBehavior::MergedWithNext;
    }
    if (name == "Contiguous") {
        return SplitBehavior::Contiguous;
    }
    node.fail("unknown split behavior '" + name +
              "' (expected Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous)");
}

class SequencePreTokenizer : public PreTokenizer {
public:
    explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> parts)
        : parts_(std::move(parts)) {}
    void split(Piece &piece, Pieces &out) const override {
        Pieces current;
        current.push_back(std::move(piece));
        for (const auto &part : parts_) {
            part->preTokenize(current);
        }
        for (Piece &p : current) {
            out.push_back(std::move(p));
        }
    }

private:
    std::vector<std::unique_ptr<PreTokenizer>> parts_;
};

class ByteLevelPreTokenizer : public PreTokenizer {
public:
    ByteLevelPreTokenizer(bool add_prefix_space, bool use_regex)
        : add_prefix_space_(add_prefix_space),
          regex_(use_regex ? std::make_unique<Regex>(kByteLevelPattern) : nullptr) {}
    void split(Piece &piece, Pieces &out) const override {
        if (add_prefix_space_ && (piece.text.empty() || piece.text[0] != ' ')) {
            piece.text.insert(0, " ");
            piece.mode = OffsetMode::Opaque;
        }
        const std::size_t first = out.size();
        if (regex_) {
            std::vector<std::pair<std::size_t, std::size_t>> matches;
            regex_->findMatches(piece.text, matches);
            std::vector<Span> spans;
            matchesToSpans(piece.text, matches, spans);
            splitPiece(piece, spans, SplitBehavior::Isolated, out);
        } else if (!piece.text.empty()) {
            out.push_back(std::move(piece));
        }
        for (std::size_t i = first; i < out.size(); ++i) {
            Piece &p = out[i];
            p.text = byteLevelEncode(p.text);
            p.mode = p.mode == OffsetMode::Exact ? OffsetMode::ByteMapped : OffsetMode::Opaque;
        }
    }

private:
    bool add_prefix_space_;
    std::unique_ptr<Regex> regex_;
};

class SplitPreTokenizer : public PreTokenizer {
public:
    SplitPreTokenizer(Pattern pattern, SplitBehavior behavior, bool invert)
        : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert) {}
    void split(Piece &piece, Pieces &out) const override {
        std::vector<std::pair<std::size_t, std::size_t>> matches;
        pattern_.findMatches(piece.text, matches);
        std::vector<Span> spans;
        matchesToSpans(piece.text, matches, spans);
        if (invert_) {
            for (Span &s : spans) {
                s.match = !s.match;
            }
        }
        splitPiece(piece, spans, behavior_, out);
    }

private:
    Pattern pattern_;
    SplitBehavior behavior_;
    bool invert_;
};

class MetaspacePreTokenizer : public PreTokenizer {
public:
    MetaspacePreTokenizer(char32_t replacement, PrependScheme scheme, bool split)
        : scheme_(scheme), split_(split) {
        appendUtf8(replacement_, replacement);
    }
    void split(Piece &piece, Pieces &out) const override {
        std::string text;
        text.reserve(piece.text.size() + 8);
        bool changed = false;
        for (const char c : piece.text) {
            if (c == ' ') {
                text += replacement_;
                changed = true;
            } else {
                text.push_back(c);
            }
        }
        const bool starts = text.compare(0, replacement_.size(), replacement_) == 0;
        if (!starts && (scheme_ == PrependScheme::Always ||
                        (scheme_ == PrependScheme::First && piece.begin == 0))) {
            text.insert(0, replacement_);
            changed = true;
        }
        piece.text = std::move(text);
        if (changed && replacement_ != " ") {
            piece.mode = OffsetMode::Opaque;
        }
        if (!split_) {
            if (!piece.text.empty()) {
                out.push_back(std::move(piece));
            }
            return;
        }
        std::vector<std::pair<std::size_t, std::size_t>> matches;
        findLiteral(piece.text, replacement_, matches);
        std::vector<Span> spans;
        matchesToSpans(piece.text, matches, spans);
        splitPiece(piece, spans, SplitBehavior::MergedWithNext, out);
    }

private:
    std::string replacement_;
    PrependScheme scheme_;
    bool split_;
};

// \w+|[^\w\s]+ kept, whitespace dropped.
class WhitespacePreTokenizer : public PreTokenizer {
public:
    void split(Piece &piece, Pieces &out) const override {
        std::vector<std::pair<std::size_t, std::size_t>> matches;
        const std::string_view text(piece.text);
        int run = 0; // 1 word, 2 other
        std::size_t run_start = 0;
        for (std::size_t pos = 0; pos < text.size();) {
            const std::size_t start = pos;
            const char32_t c = nextChar(text, pos);
            const int kind = isWordChar(c) ? 1 : isWhitespace(c) ? 0 : 2;
            if (kind != run) {
                if (run != 0) {
                    matches.emplace_back(run_start, start);
                }
                run = kind;
                run_start = start;
            }
        }
        if (run != 0) {
            matches.emplace_back(run_start, text.size());
        }
        std::vector<Span> spans;
        matchesToSpans(text, matches, spans);
        for (Span &s : spans) {
            s.match = !s.match;
        }
        splitPiece(piece, spans, SplitBehavior::Removed, out);
    }
};

class CharPredicatePreTokenizer : public PreTokenizer {
public:
    CharPredicatePreTokenizer(std::function<bool(char32_t)> predicate, SplitBehavior behavior)
        : predicate_(std::move(predicate)), behavior_(behavior) {}
    void split(Piece &piece, Pieces &out) const override {
        splitOnChars(piece, predicate_, behavior_, out);
    }

private:
    std::function<bool(char32_t)> predicate_;
    SplitBehavior behavior_;
};

class BertPreTokenizer : public PreTokenizer {
public:
    void split(Piece &piece, Pieces &out) const override {
        Pieces words;
        splitOnChars(piece, isWhitespace, SplitBehavior::Removed, words);
        for (const Piece &word : words) {
            splitOnChars(word, isPunctuation, SplitBehavior::Isolated, out);
        }
    }
};

char32_t singleChar(const JsonNode &node) {
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

PrependScheme metaspaceScheme(const JsonNode &node) {
    if (node.has("prepend_scheme")) {
        const JsonNode scheme = node.at("prepend_scheme");
        const std::string name = scheme.string();
        if (name == "first") {
            return PrependScheme::First;
        }
        if (name == "never") {
            return PrependScheme::Never;
        }
        if (name == "always") {
            return PrependScheme::Always;
        }
        scheme.fail("unknown prepend_scheme '" + name + "' (expected first, never, always)");
    }
    return node.boolean("add_prefix_space", true) ? PrependScheme::Always : PrependScheme::Never;
}

} // namespace

std::unique_ptr<PreTokenizer> makeByteLevelPreTokenizer(bool add_prefix_space, bool use_regex) {
    return std::make_unique<ByteLevelPreTokenizer>(add_prefix_space, use_regex);
}

std::unique_ptr<PreTokenizer> makeBertPreTokenizer() {
    return std::make_unique<BertPreTokenizer>();
}

std::unique_ptr<PreTokenizer> makePreTokenizer(const JsonNode &node) {
    const std::string type = node.type();
    if (type == "Sequence") {
        const JsonNode list = node.at("pretokenizers");
        list.expectArray();
        std::vector<std::unique_ptr<PreTokenizer>> parts;
        for (std::size_t i = 0; i < list.size(); ++i) {
            parts.push_back(makePreTokenizer(list.at(i)));
        }
        return std::make_unique<SequencePreTokenizer>(std::move(parts));
    }
    if (type == "ByteLevel") {
        return makeByteLevelPreTokenizer(node.boolean("add_prefix_space", true),
                                         node.boolean("use_regex", true));
    }
    if (type == "Split") {
        return std::make_unique<SplitPreTokenizer>(Pattern::fromJson(node.at("pattern")),
                                                   parseBehavior(node.at("behavior")),
                                                   node.boolean("invert", false));
    }
    if (type == "Metaspace") {
        const char32_t replacement =
            node.has("replacement") ? singleChar(node.at("replacement")) : U'\u2581';
        return std::make_unique<MetaspacePreTokenizer>(replacement, metaspaceScheme(node),
                                                       node.boolean("split", true));
    }
    if (type == "Whitespace") {
        return std::make_unique<WhitespacePreTokenizer>();
    }
    if (type == "WhitespaceSplit") {
        return std::make_unique<CharPredicatePreTokenizer>(isWhitespace, SplitBehavior::Removed);
    }
    if (type == "BertPreTokenizer") {
        return makeBertPreTokenizer();
    }
    if (type == "Punctuation") {
        const SplitBehavior behavior =
            node.has("behavior") ? parseBehavior(node.at("behavior")) : SplitBehavior::Isolated;
        return std::make_unique<CharPredicatePreTokenizer>(isPunctuation, behavior);
    }
    if (type == "Digits") {
        return std::make_unique<CharPredicatePreTokenizer>(
            isNumeric, node.boolean("individual_digits", false) ? SplitBehavior::Isolated
                                                                : SplitBehavior::Contiguous);
    }
    if (type == "CharDelimiterSplit") {
        const char32_t delimiter = singleChar(node.at("delimiter"));
        return std::make_unique<CharPredicatePreTokenizer>(
            [delimiter](char32_t c) { return c == delimiter; }, SplitBehavior::Removed);
    }
    if (type == "UnicodeScripts") {
        return makeUnicodeScriptsPreTokenizer();
    }
    if (type == "FixedLength") {
        const std::int64_t length = node.integer("length", 5);
        if (length < 1) {
            node.at("length").fail("expected a length of at least 1");
        }
        return makeFixedLengthPreTokenizer(static_cast<std::size_t>(length));
    }
    node.at("type").fail("unknown pre-tokenizer '" + type +
                         "' (expected Sequence, ByteLevel, Split, Metaspace, Whitespace, "
                         "WhitespaceSplit, BertPreTokenizer, Punctuation, Digits, "
                         "CharDelimiterSplit, UnicodeScripts, FixedLength)");
}

} // namespace headroom::tokenizers
