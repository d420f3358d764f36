// The UnicodeScripts and FixedLength pre-tokenizers of the reference library.

#include "tokenizers/pre_tokenizers/pre_tokenizers.h"
#include "tokenizers/unicode.h"

#include <unicode/uscript.h>

namespace headroom::tokenizers {

namespace {

// The reference's script of a character: the space belongs to every script, and kana (with
// the prolonged sound mark U+30FC) counts as Han so Japanese text stays in one piece.
constexpr int kAnyScript = -1;

int scriptOf(char32_t c) {
    if (c == U' ') {
        return kAnyScript;
    }
    if (c == 0x30FC) {
        return USCRIPT_HAN;
    }
    UErrorCode status = U_ZERO_ERROR;
    const UScriptCode script = uscript_getScript(static_cast<UChar32>(c), &status);
    if (U_FAILURE(status)) {
        return USCRIPT_UNKNOWN;
    }
    if (script == USCRIPT_HIRAGANA || script == USCRIPT_KATAKANA) {
        return USCRIPT_HAN;
    }
    return script;
}

// Consecutive spans of `text` (all kept) cut before each byte offset in `cuts`.
void cutAt(const Piece &piece, const std::vector<std::size_t> &cuts, Pieces &out) {
    std::vector<Span> spans;
    std::size_t start = 0;
    for (const std::size_t cut : cuts) {
        if (cut > start) {
            spans.push_back(Span{start, cut, true});
            start = cut;
        }
    }
    if (start < piece.text.size()) {
        spans.push_back(Span{start, piece.text.size(), true});
    }
    splitPiece(piece, spans, SplitBehavior::Isolated, out);
}

class UnicodeScriptsPreTokenizer : public PreTokenizer {
public:
    void split(Piece &piece, Pieces &out) const override {
        std::vector<std::size_t> cuts;
        bool have_last = false;
        int last = 0;
        const std::string_view text = piece.text;
        for (std::size_t pos = 0; pos < text.size();) {
            const std::size_t start = pos;
            const int script = scriptOf(nextChar(text, pos));
            // A space neither starts a new piece nor ends the current script.
            if (script != kAnyScript && !(have_last && last == kAnyScript) &&
                !(have_last && last == script)) {
                cuts.push_back(start);
            }
            if (script != kAnyScript) {
                last = script;
                have_last = true;
            }
        }
        cutAt(piece, cuts, out);
    }
};

class FixedLengthPreTokenizer : public PreTokenizer {
public:
    explicit FixedLengthPreTokenizer(std::size_t length) : length_(length) {}
    void split(Piece &piece, Pieces &out) const override {
        std::vector<std::size_t> cuts;
        const std::string_view text = piece.text;
        std::size_t count = 0;
        for (std::size_t pos = 0; pos < text.size();) {
            if (count > 0 && count % length_ == 0) {
                cuts.push_back(pos);
            }
            nextChar(text, pos);
            ++count;
        }
        cutAt(piece, cuts, out);
    }

private:
    std::size_t length_;
};

} // namespace

std::unique_ptr<PreTokenizer> makeUnicodeScriptsPreTokenizer() {
    return std::make_unique<UnicodeScriptsPreTokenizer>();
}

std::unique_ptr<PreTokenizer> makeFixedLengthPreTokenizer(std::size_t length) {
    return std::make_unique<FixedLengthPreTokenizer>(length);
}

} // namespace headroom::tokenizers
