#pragma once

// Models of the reference library: they turn one pre-tokenized word into token ids.

#include "tokenizers/json_reader.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace headroom::tokenizers {

// A token of a word: its id and the bytes [start, end) of the word it covers.
struct ModelToken {
    std::int32_t id;
    std::uint32_t start;
    std::uint32_t end;
    // The token's string is the text it covers, not the vocabulary's spelling of its id (a
    // Unigram unknown piece).
    bool spelled_as_text = false;
};

// Token string <-> id. Ids need not be contiguous.
class Vocab {
public:
    void add(const std::string &token, std::int32_t id);
    std::optional<std::int32_t> find(const std::string &token) const {
        const auto it = to_id_.find(token);
        return it == to_id_.end() ? std::nullopt : std::optional<std::int32_t>(it->second);
    }
    const std::string *token(std::int32_t id) const {
        const auto index = static_cast<std::size_t>(id);
        if (id >= 0 && index < to_token_.size() && has_[index]) {
            return &to_token_[index];
        }
        const auto it = sparse_.find(id); // added while the table was still small
        return it == sparse_.end() ? nullptr : &it->second;
    }
    std::size_t size() const { return to_id_.size(); }
    const std::unordered_map<std::string, std::int32_t> &map() const { return to_id_; }

private:
    std::unordered_map<std::string, std::int32_t> to_id_;
    std::vector<std::string> to_token_;
    std::vector<bool> has_;
    std::unordered_map<std::int32_t, std::string> sparse_; // ids far beyond the others
};

class Model {
public:
    virtual ~Model() = default;
    // Appends the tokens of `word` (a non-empty pre-tokenized piece).
    virtual void tokenize(const std::string &word, std::vector<ModelToken> &out) const = 0;
    const Vocab &vocab() const { return vocab_; }

protected:
    Vocab vocab_;
};

// From tokenizer.json's "model" value.
std::unique_ptr<Model> makeModel(const JsonNode &node);

struct BpeOptions {
    std::optional<std::string> unk_token;
    std::string continuing_subword_prefix;
    std::string end_of_word_suffix;
    bool fuse_unk = false;
    bool byte_fallback = false;
    bool ignore_merges = false;
};

// `merges` are pairs of token strings in rank order. Throws std::invalid_argument naming a
// merge whose parts or result are not in the vocabulary.
std::unique_ptr<Model> makeBpe(Vocab vocab,
                               const std::vector<std::pair<std::string, std::string>> &merges,
                               const BpeOptions &options);
std::unique_ptr<Model> makeWordPiece(Vocab vocab, std::string unk_token, std::string prefix,
                                     std::size_t max_input_chars_per_word);
std::unique_ptr<Model> makeWordLevel(Vocab vocab, std::string unk_token);
// `pieces`: (token, score) in id order.
std::unique_ptr<Model> makeUnigram(const std::vector<std::pair<std::string, double>> &pieces,
                                   std::optional<std::int32_t> unk_id, bool byte_fallback);

} // namespace headroom::tokenizers
