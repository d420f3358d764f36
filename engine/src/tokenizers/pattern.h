#pragma once

// The pattern of a Split pre-tokenizer and of the Replace normalizer and decoder in
// tokenizer.json: {"String": "..."} matches literally, {"Regex": "..."} as PCRE2 (regex.h).

#include "tokenizers/regex.h"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace headroom::tokenizers {

class JsonNode;

class Pattern {
public:
    // `node` is the "pattern" object; a bad regex fails at its path.
    static Pattern fromJson(const JsonNode &node);

    // Every match, left to right, non-overlapping.
    void findMatches(std::string_view text,
                     std::vector<std::pair<std::size_t, std::size_t>> &out) const;
    // `text` with every match replaced by `content`.
    void replaceAll(std::string &text, const std::string &content) const;

private:
    std::string literal_;
    std::shared_ptr<const Regex> regex_; // set for {"Regex": ...}
};

} // namespace headroom::tokenizers
