#include "tokenizers/models/models.h"
#include "tokenizers/unicode.h"

#include <headroom/tokenizer.h>

#include <limits>
#include <stdexcept>

namespace headroom::tokenizers {

namespace {

// Byte trie over the vocabulary for common-prefix search.
class Trie {
public:
    void insert(const std::string &key, std::int32_t id) {
        std::uint32_t node = 0;
        for (const char c : key) {
            const std::uint64_t edge = (std::uint64_t{node} << 8) | static_cast<unsigned char>(c);
            const auto it = edges_.find(edge);
            if (it == edges_.end()) {
                const auto next = static_cast<std::uint32_t>(ids_.size());
                ids_.push_back(-1);
                edges_.emplace(edge, next);
                node = next;
            } else {
                node = it->second;
            }
        }
        ids_[node] = id;
    }
    // Calls fn(id, length) for every vocabulary entry that is a prefix of text[start..].
    template <typename Fn> void prefixes(const std::string &text, std::size_t start, Fn fn) const {
        std::uint32_t node = 0;
        for (std::size_t pos = start; pos < text.size(); ++pos) {
            const std::uint64_t edge =
                (std::uint64_t{node} << 8) | static_cast<unsigned char>(text[pos]);
            const auto it = edges_.find(edge);
            if (it == edges_.end()) {
                return;
            }
            node = it->second;
            if (ids_[node] >= 0) {
                fn(ids_[node], pos + 1 - start);
            }
        }
    }

private:
    std::unordered_map<std::uint64_t, std::uint32_t> edges_;
    std::vector<std::int32_t> ids_{-1};
};

class UnigramModel : public Model {
public:
    UnigramModel(const std::vector<std::pair<std::string, double>> &pieces,
                 std::optional<std::int32_t> unk_id, bool byte_fallback)
        : unk_id_(unk_id), byte_fallback_(byte_fallback) {
        scores_.reserve(pieces.size());
        double min_score = std::numeric_limits<double>::infinity();
        for (std::size_t id = 0; id < pieces.size(); ++id) {
            const auto &[token, score] = pieces[id];
            vocab_.add(token, static_cast<std::int32_t>(id));
            scores_.push_back(score);
            min_score = std::min(min_score, score);
        }
        // The reference inserts each token string once; a duplicate keeps the later id.
        for (const auto &[token, id] : vocab_.map()) {
            trie_.insert(token, id);
        }
        unk_score_ = min_score - 10.0;
    }

    void tokenize(const std::string &word, std::vector<ModelToken> &out) const override {
        struct Node {
            double score = 0;
            std::int64_t start = -1;
            std::int32_t id = -1;
        };
        const std::size_t len = word.size();
        std::vector<Node> best(len + 1);
        best[0].start = 0;
        for (std::size_t start = 0; start < len;) {
            const double base = best[start].score;
            const std::size_t char_len = charLength(static_cast<unsigned char>(word[start]));
            bool has_single = false;
            trie_.prefixes(word, start, [&](std::int32_t id, std::size_t length) {
                Node &target = best[start + length];
                const double candidate = base + scores_[static_cast<std::size_t>(id)];
                if (target.start < 0 || candidate > target.score) {
                    target = {candidate, static_cast<std::int64_t>(start), id};
                }
                has_single = has_single || length == char_len;
            });
            if (!has_single) {
                if (!unk_id_) {
                    throw TokenizerError("Unigram: the model has no unknown token (unk_id)");
                }
                Node &target = best[start + char_len];
                const double candidate = base + unk_score_;
                if (target.start < 0 || candidate > target.score) {
                    target = {candidate, static_cast<std::int64_t>(start), *unk_id_};
                }
            }
            start += char_len;
        }
        // Walk back, fusing runs of unknown pieces.
        std::vector<std::pair<std::size_t, std::size_t>> ranges;
        std::size_t end = len;
        std::size_t unk_end = 0;
        bool in_unk = false;
        while (end > 0) {
            const Node &node = best[end];
            const auto start = static_cast<std::size_t>(node.start);
            if (unk_id_ && node.id == *unk_id_) {
                if (!in_unk) {
                    unk_end = end;
                    in_unk = true;
                }
            } else {
                if (in_unk) {
                    ranges.emplace_back(end, unk_end);
                    in_unk = false;
                }
                ranges.emplace_back(start, end);
            }
            end = start;
        }
        if (in_unk) {
            ranges.emplace_back(0, unk_end);
        }
        std::string piece;
        for (auto it = ranges.rbegin(); it != ranges.rend(); ++it) {
            const auto [from, to] = *it;
            piece.assign(word, from, to - from);
            const auto start32 = static_cast<std::uint32_t>(from);
            const auto end32 = static_cast<std::uint32_t>(to);
            if (const auto id = vocab_.find(piece)) {
                out.push_back({*id, start32, end32});
                continue;
            }
            if (byte_fallback_) {
                std::vector<std::int32_t> bytes;
                static const char *hex = "0123456789ABCDEF";
                for (const char c : piece) {
                    const auto b = static_cast<unsigned char>(c);
                    const auto id =
                        vocab_.find(std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">");
                    if (!id) {
                        bytes.clear();
                        break;
                    }
                    bytes.push_back(*id);
                }
                if (!bytes.empty()) {
                    for (const std::int32_t id : bytes) {
                        out.push_back({id, start32, end32});
                    }
                    continue;
                }
            }
            if (!unk_id_) {
                throw TokenizerError("Unigram: the model has no unknown token (unk_id)");
            }
            out.push_back({*unk_id_, start32, end32, true});
        }
    }

private:
    std::vector<double> scores_;
    Trie trie_;
    std::optional<std::int32_t> unk_id_;
    bool byte_fallback_;
    double unk_score_ = 0;
};

} // namespace

std::unique_ptr<Model> makeUnigram(const std::vector<std::pair<std::string, double>> &pieces,
                                   std::optional<std::int32_t> unk_id, bool byte_fallback) {
    return std::make_unique<UnigramModel>(pieces, unk_id, byte_fallback);
}

} // namespace headroom::tokenizers
