#pragma once

// Regular expressions for the Split pre-tokenizer and the Replace normalizer/decoder: PCRE2
// with UTF and Unicode properties (UCP), JIT-compiled. The reference compiles these patterns
// with Oniguruma, which supports look-ahead (`\s+(?!\S)`) as PCRE2 does and RE2 does not.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::tokenizers {

// A part of a string: [start, end) and whether it is a match of the pattern (or a gap).
struct Span {
    std::size_t start = 0;
    std::size_t end = 0;
    bool match = false;
};

class Regex {
public:
    // Throws std::invalid_argument with PCRE2's message and offset when the pattern is bad.
    explicit Regex(const std::string &pattern);
    ~Regex();
    Regex(const Regex &) = delete;
    Regex &operator=(const Regex &) = delete;

    // Every match, left to right, as the reference's find_iter sees them (an empty match right
    // after the previous match is skipped).
    void findMatches(std::string_view text,
                     std::vector<std::pair<std::size_t, std::size_t>> &out) const;

    const std::string &pattern() const { return pattern_; }

private:
    struct Impl;
    std::string pattern_;
    std::unique_ptr<Impl> impl_;
};

// The regex that matches `literal` exactly (metacharacters escaped).
std::string escapeRegex(std::string_view literal);

// Matches and the gaps between them, covering all of `text` (an empty text gives one gap).
void matchesToSpans(std::string_view text,
                    const std::vector<std::pair<std::size_t, std::size_t>> &matches,
                    std::vector<Span> &out);

// Every occurrence of a literal (non-overlapping, left to right).
void findLiteral(std::string_view text, std::string_view literal,
                 std::vector<std::pair<std::size_t, std::size_t>> &out);

} // namespace headroom::tokenizers
