// The `Precompiled` normalizer: SentencePiece's compiled normalization rules
// (precompiled_charsmap), applied grapheme by grapheme as the reference library applies them.
//
// The charsmap is a little-endian uint32 trie size in bytes, a darts-clone double-array trie of
// that many bytes (uint32 units), then a blob of NUL-terminated replacement strings. The trie
// maps a byte string to the offset of its replacement in the blob. Everything the lookups can
// reach is checked once at load, so a malformed file is refused instead of read out of bounds.
#include "tokenizers/normalizers/normalizers.h"
#include "util/base64.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <unicode/brkiter.h>
#include <unicode/utext.h>
#include <vector>

namespace headroom::tokenizers {

namespace {

// darts-clone unit layout.
bool hasLeaf(std::uint32_t unit) {
    return ((unit >> 8) & 1u) != 0;
}
std::uint32_t valueOf(std::uint32_t unit) {
    return unit & 0x7FFFFFFFu;
}
// Bit 31 is part of the label so that value units never match an input byte.
std::uint32_t labelOf(std::uint32_t unit) {
    return unit & (0x80000000u | 0xFFu);
}
std::size_t offsetOf(std::uint32_t unit) {
    return static_cast<std::size_t>((unit >> 10) << ((unit & (1u << 9)) >> 6));
}

// Graphemes shorter than this many bytes are first looked up whole (the reference's rule).
constexpr std::size_t kWholeGraphemeBytes = 6;

class PrecompiledNormalizer : public Normalizer {
public:
    PrecompiledNormalizer(std::vector<std::uint32_t> units, std::string blob)
        : units_(std::move(units)), blob_(std::move(blob)) {
        const std::size_t root = offsetOf(units_[0]);
        for (unsigned c = 1; c < 256; ++c) {
            const std::uint32_t unit = units_[root ^ c];
            first_bytes_[c] = labelOf(unit) == c;
        }
    }

    void normalize(std::string &text) const override;

private:
    std::optional<std::string_view> shortestMatch(const char *key, std::size_t length) const;
    bool mayChange(const std::string &text) const;

    std::vector<std::uint32_t> units_;
    std::string blob_;
    bool first_bytes_[256] = {};
};

// The replacement of the shortest key that is a prefix of `key` (the reference takes the first
// result of a common-prefix search, not the longest match as SentencePiece itself does).
std::optional<std::string_view> PrecompiledNormalizer::shortestMatch(const char *key,
                                                                     std::size_t length) const {
    std::size_t pos = offsetOf(units_[0]);
    for (std::size_t i = 0; i < length; ++i) {
        const auto c = static_cast<unsigned char>(key[i]);
        if (c == 0) {
            break;
        }
        pos ^= c;
        if (pos >= units_.size()) {
            return std::nullopt;
        }
        const std::uint32_t unit = units_[pos];
        if (labelOf(unit) != c) {
            return std::nullopt;
        }
        pos ^= offsetOf(unit);
        if (pos >= units_.size()) {
            return std::nullopt;
        }
        if (hasLeaf(unit)) {
            const std::size_t begin = valueOf(units_[pos]);
            if (begin >= blob_.size()) {
                return std::nullopt;
            }
            const void *nul = std::memchr(blob_.data() + begin, 0, blob_.size() - begin);
            const std::size_t end =
                nul == nullptr ? blob_.size() : static_cast<const char *>(nul) - blob_.data();
            return std::string_view(blob_).substr(begin, end - begin);
        }
    }
    return std::nullopt;
}

// Whether any character could start a match: most text (plain ASCII with nmt_nfkc) cannot.
bool PrecompiledNormalizer::mayChange(const std::string &text) const {
    for (const char ch : text) {
        const auto b = static_cast<unsigned char>(ch);
        if ((b & 0xC0) != 0x80 && first_bytes_[b]) {
            return true;
        }
    }
    return false;
}

icu::BreakIterator &graphemeIterator() {
    thread_local std::unique_ptr<icu::BreakIterator> iterator;
    if (!iterator) {
        UErrorCode status = U_ZERO_ERROR;
        iterator.reset(icu::BreakIterator::createCharacterInstance(icu::Locale::getRoot(), status));
        if (U_FAILURE(status) || !iterator) {
            throw TokenizerError("grapheme segmentation is not available (ICU data missing)");
        }
    }
    return *iterator;
}

void PrecompiledNormalizer::normalize(std::string &text) const {
    if (!mayChange(text)) {
        return;
    }
    if (text.size() > static_cast<std::size_t>(std::numeric_limits<int32_t>::max())) {
        throw TokenizerError("text too long for the Precompiled normalizer");
    }
    icu::BreakIterator &graphemes = graphemeIterator();
    UErrorCode status = U_ZERO_ERROR;
    UText *utext = utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &status);
    graphemes.setText(utext, status);
    if (U_FAILURE(status)) {
        utext_close(utext);
        throw TokenizerError("grapheme segmentation failed");
    }
    std::string out;
    out.reserve(text.size() + text.size() / 4);
    auto begin = static_cast<std::size_t>(graphemes.first());
    for (int32_t next = graphemes.next(); next != icu::BreakIterator::DONE;
         next = graphemes.next()) {
        const auto end = std::min(static_cast<std::size_t>(next), text.size());
        if (end <= begin) {
            continue;
        }
        if (end - begin < kWholeGraphemeBytes) {
            if (const auto replaced = shortestMatch(text.data() + begin, end - begin)) {
                out += *replaced;
                begin = end;
                continue;
            }
        }
        while (begin < end) {
            const std::size_t length =
                std::min(charLength(static_cast<unsigned char>(text[begin])), end - begin);
            if (const auto replaced = shortestMatch(text.data() + begin, length)) {
                out += *replaced;
            } else {
                out.append(text, begin, length);
            }
            begin += length;
        }
    }
    graphemes.setText(icu::UnicodeString()); // drop the UText that points into `text`
    utext_close(utext);
    text = std::move(out);
}

// Walks every node a lookup can reach and refuses the charsmap where a lookup would leave the
// trie or the blob. Returns the problem, or an empty string.
std::string checkTrie(const std::vector<std::uint32_t> &units, const std::string &blob) {
    const std::size_t size = units.size();
    auto nodeFits = [&](std::size_t base) {
        return (base | 0xFFu) < size;
    };
    const std::size_t root = offsetOf(units[0]);
    if (!nodeFits(root)) {
        return "the trie's root points outside the trie";
    }
    std::vector<bool> seen(size, false);
    std::vector<std::size_t> pending{root};
    seen[root] = true;
    while (!pending.empty()) {
        const std::size_t base = pending.back();
        pending.pop_back();
        for (unsigned c = 1; c < 256; ++c) {
            const std::uint32_t unit = units[base ^ c];
            if (labelOf(unit) != c) {
                continue;
            }
            const std::size_t child = (base ^ c) ^ offsetOf(unit);
            if (!nodeFits(child)) {
                return "a trie unit points outside the trie";
            }
            if (hasLeaf(unit)) {
                const std::size_t at = valueOf(units[child]);
                if (at >= blob.size() || (static_cast<unsigned char>(blob[at]) & 0xC0) == 0x80) {
                    return "a replacement offset points outside the normalized strings";
                }
                if (blob.find('\0', at) == std::string::npos) {
                    return "a normalized string is not NUL-terminated";
                }
            }
            if (!seen[child]) {
                seen[child] = true;
                pending.push_back(child);
            }
        }
    }
    return {};
}

} // namespace

std::unique_ptr<Normalizer> makePrecompiledNormalizer(const JsonNode &node) {
    const JsonNode field = node.at("precompiled_charsmap");
    const std::optional<std::string> data = util::base64Decode(field.string());
    if (!data) {
        field.fail("not valid base64");
    }
    if (data->size() < 4) {
        field.fail("too short for a SentencePiece charsmap");
    }
    auto byte = [&](std::size_t i) {
        return std::uint32_t{static_cast<unsigned char>((*data)[i])};
    };
    auto word = [&](std::size_t at) {
        return byte(at) | byte(at + 1) << 8 | byte(at + 2) << 16 | byte(at + 3) << 24;
    };
    const std::uint32_t trie_bytes = word(0);
    if (trie_bytes == 0 || trie_bytes % 4 != 0 || trie_bytes > data->size() - 4) {
        field.fail("bad trie size " + std::to_string(trie_bytes) +
                   " (a whole number of units in "
                   "the " +
                   std::to_string(data->size()) + "-byte charsmap)");
    }
    std::vector<std::uint32_t> units(trie_bytes / 4);
    for (std::size_t i = 0; i < units.size(); ++i) {
        units[i] = word(4 + 4 * i);
    }
    std::string blob = data->substr(4 + trie_bytes);
    if (const std::size_t bad = findInvalidUtf8(blob); bad != blob.size()) {
        field.fail("normalized strings are not UTF-8 (byte " + std::to_string(bad) + ")");
    }
    if (const std::string problem = checkTrie(units, blob); !problem.empty()) {
        field.fail(problem);
    }
    return std::make_unique<PrecompiledNormalizer>(std::move(units), std::move(blob));
}

} // namespace headroom::tokenizers
