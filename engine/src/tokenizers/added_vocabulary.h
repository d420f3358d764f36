#pragma once

// Added tokens (special tokens such as <|begin_of_text|>, and user-added words) are found in
// the raw text before anything else runs, as the reference's AddedVocabulary does: tokens with
// normalized=false in the input as it is, those with normalized=true in the normalized text.

#include "tokenizers/normalizers/normalizers.h"
#include "tokenizers/pieces.h"

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace headroom::tokenizers {

struct AddedToken {
    std::string content;
    std::int32_t id = -1;
    bool single_word = false;
    bool lstrip = false;
    bool rstrip = false;
    bool normalized = false;
    bool special = false;
};

class AddedVocabulary {
public:
    // `normalizer` (may be null) gives the patterns of the normalized tokens.
    void build(std::vector<AddedToken> tokens, const Normalizer *normalizer);

    // Splits `text` into pieces: added tokens (added_id set) and normalized text between them.
    void extract(const std::string &text, const Normalizer *normalizer, Pieces &out) const;

    const std::vector<AddedToken> &tokens() const { return tokens_; }
    const AddedToken *byId(std::int32_t id) const;
    const AddedToken *byContent(const std::string &content) const;

private:
    // Leftmost-longest matching of a set of strings (a byte trie).
    class Matcher {
    public:
        void add(const std::string &pattern, std::size_t token_index);
        bool empty() const { return nodes_.size() <= 1; }
        // (start, end, token index) of non-overlapping leftmost-longest matches.
        void find(std::string_view text, std::vector<std::array<std::size_t, 3>> &matches) const;

    private:
        struct Node {
            std::unordered_map<unsigned char, std::uint32_t> next;
            std::int64_t token = -1;
        };
        std::vector<Node> nodes_{Node{}};
        std::array<bool, 256> first_{};
    };

    void split(const Piece &piece, const Matcher &matcher, Pieces &out) const;

    std::vector<AddedToken> tokens_;
    std::unordered_map<std::int32_t, std::size_t> by_id_;
    std::unordered_map<std::string, std::size_t> by_content_;
    Matcher raw_;
    Matcher normalized_;
};

} // namespace headroom::tokenizers
