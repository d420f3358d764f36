#include "tokenizers/models/models.h"
#include "tokenizers/unicode.h"

#include <headroom/tokenizer.h>

#include <algorithm>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>

namespace headroom::tokenizers {

namespace {

// Open-addressing map from a pair of token ids to (rank, merged id): looked up for every
// adjacent pair of every word, so it avoids std::unordered_map's node hops.
class MergeMap {
public:
    struct Value {
        std::int32_t rank;
        std::int32_t id;
    };

    void reserve(std::size_t count) {
        std::size_t capacity = 16;
        while (capacity < count * 2) {
            capacity *= 2;
        }
        keys_.assign(capacity, kEmpty);
        values_.assign(capacity, {0, 0});
        mask_ = capacity - 1;
    }

    // A later merge of the same pair replaces the earlier one, as in the reference.
    void set(std::int32_t a, std::int32_t b, Value value) {
        const std::uint64_t key = pack(a, b);
        std::size_t slot = hash(key) & mask_;
        while (keys_[slot] != kEmpty && keys_[slot] != key) {
            slot = (slot + 1) & mask_;
        }
        keys_[slot] = key;
        values_[slot] = value;
    }

    const Value *find(std::int32_t a, std::int32_t b) const {
        if (keys_.empty()) {
            return nullptr;
        }
        const std::uint64_t key = pack(a, b);
        for (std::size_t slot = hash(key) & mask_;; slot = (slot + 1) & mask_) {
            if (keys_[slot] == key) {
                return &values_[slot];
            }
            if (keys_[slot] == kEmpty) {
                return nullptr;
            }
        }
    }

private:
    static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
    static std::uint64_t pack(std::int32_t a, std::int32_t b) {
        return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) |
               static_cast<std::uint32_t>(b);
    }
    static std::size_t hash(std::uint64_t key) {
        key ^= key >> 33;
        key *= 0xff51afd7ed558ccdULL;
        key ^= key >> 33;
        return static_cast<std::size_t>(key);
    }
    std::vector<std::uint64_t> keys_;
    std::vector<Value> values_;
    std::size_t mask_ = 0;
};

struct Symbol {
    std::int32_t id;
    std::int32_t prev;
    std::int32_t next;
    std::uint32_t len; // bytes of the word; 0 once merged into its left neighbour
};

struct Candidate {
    std::int32_t rank;
    std::int32_t pos;
    std::int32_t id;
    // Heap order: lowest rank first, then leftmost.
    bool operator<(const Candidate &other) const {
        return rank != other.rank ? rank > other.rank : pos > other.pos;
    }
};

class BpeModel : public Model {
public:
    BpeModel(Vocab vocab, const std::vector<std::pair<std::string, std::string>> &merges,
             const BpeOptions &options)
        : options_(options) {
        vocab_ = std::move(vocab);
        merges_.reserve(merges.size());
        const std::size_t prefix_len = options.continuing_subword_prefix.size();
        for (std::size_t rank = 0; rank < merges.size(); ++rank) {
            const auto &[a, b] = merges[rank];
            const auto a_id = vocab_.find(a);
            const auto b_id = vocab_.find(b);
            if (!a_id || !b_id) {
                throw std::invalid_argument("merge " + std::to_string(rank) + " ('" + a + " " + b +
                                            "'): token '" + (a_id ? b : a) +
                                            "' is not in the vocabulary");
            }
            const std::string merged = a + (b.size() >= prefix_len ? b.substr(prefix_len) : "");
            const auto merged_id = vocab_.find(merged);
            if (!merged_id) {
                throw std::invalid_argument("merge " + std::to_string(rank) + " ('" + a + " " + b +
                                            "'): result '" + merged + "' is not in the vocabulary");
            }
            merges_.set(*a_id, *b_id, {static_cast<std::int32_t>(rank), *merged_id});
        }
        if (options.byte_fallback) {
            static const char *hex = "0123456789ABCDEF";
            for (int b = 0; b < 256; ++b) {
                const std::string name = std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">";
                byte_ids_[static_cast<std::size_t>(b)] = vocab_.find(name).value_or(-1);
            }
        }
        if (options.unk_token) {
            unk_id_ = vocab_.find(*options.unk_token);
        }
    }

    void tokenize(const std::string &word, std::vector<ModelToken> &out) const override {
        if (word.empty()) {
            return;
        }
        {
            std::shared_lock<std::shared_mutex> lock(cache_mutex_);
            const auto it = cache_.find(word);
            if (it != cache_.end()) {
                out.insert(out.end(), it->second.begin(), it->second.end());
                return;
            }
        }
        if (options_.ignore_merges) {
            if (const auto id = vocab_.find(word)) {
                out.push_back({*id, 0, static_cast<std::uint32_t>(word.size())});
                return;
            }
        }
        std::vector<ModelToken> tokens;
        mergeWord(word, tokens);
        out.insert(out.end(), tokens.begin(), tokens.end());
        if (word.size() < kMaxCachedWordBytes) {
            std::unique_lock<std::shared_mutex> lock(cache_mutex_);
            if (cache_.size() < kCacheCapacity) {
                cache_.emplace(word, std::move(tokens));
            }
        }
    }

private:
    static constexpr std::size_t kMaxCachedWordBytes = 256;
    static constexpr std::size_t kCacheCapacity = 200000;

    void unknown(std::string &unk_error) const {
        unk_error =
            "unknown token '" + options_.unk_token.value_or("") + "' is not in the vocabulary";
    }

    void mergeWord(const std::string &word, std::vector<ModelToken> &tokens) const {
        std::vector<Symbol> symbols;
        symbols.reserve(word.size());
        auto add = [&](std::int32_t id, std::uint32_t len) {
            const auto index = static_cast<std::int32_t>(symbols.size());
            symbols.push_back({id, index - 1, index + 1, len});
        };
        std::int32_t unk_pending_id = -1;
        std::uint32_t unk_pending_len = 0;
        std::string key;
        for (std::size_t pos = 0; pos < word.size();) {
            const std::size_t start = pos;
            pos += charLength(static_cast<unsigned char>(word[pos]));
            const auto byte_len = static_cast<std::uint32_t>(pos - start);
            const bool is_first = start == 0, is_last = pos >= word.size();
            key.clear();
            if (!is_first) {
                key += options_.continuing_subword_prefix;
            }
            key.append(word, start, byte_len);
            if (is_last) {
                key += options_.end_of_word_suffix;
            }
            if (const auto id = vocab_.find(key)) {
                if (unk_pending_id >= 0) {
                    add(unk_pending_id, unk_pending_len);
                    unk_pending_id = -1;
                }
                add(*id, byte_len);
                continue;
            }
            if (options_.byte_fallback) {
                bool all = true;
                for (const char b : key) {
                    all = all && byte_ids_[static_cast<unsigned char>(b)] >= 0;
                }
                if (all) {
                    for (const char b : key) {
                        add(byte_ids_[static_cast<unsigned char>(b)], 1);
                    }
                    continue;
                }
            }
            if (options_.unk_token) {
                if (!unk_id_) {
                    std::string message;
                    unknown(message);
                    throw TokenizerError(message);
                }
                if (unk_pending_id >= 0 && options_.fuse_unk) {
                    unk_pending_len += byte_len;
                } else {
                    if (unk_pending_id >= 0) {
                        add(unk_pending_id, unk_pending_len);
                    }
                    unk_pending_id = *unk_id_;
                    unk_pending_len = byte_len;
                }
            }
        }
        if (unk_pending_id >= 0) {
            add(unk_pending_id, unk_pending_len);
        }
        if (symbols.empty()) {
            return;
        }
        symbols.back().next = -1;
        mergeAll(symbols);
        std::uint32_t offset = 0;
        for (const Symbol &s : symbols) {
            if (s.len != 0) {
                tokens.push_back({s.id, offset, offset + s.len});
                offset += s.len;
            }
        }
    }

    void mergeAll(std::vector<Symbol> &symbols) const {
        std::vector<Candidate> queue;
        queue.reserve(symbols.size());
        for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
            if (const auto *m = merges_.find(symbols[i].id, symbols[i + 1].id)) {
                queue.push_back({m->rank, static_cast<std::int32_t>(i), m->id});
            }
        }
        std::make_heap(queue.begin(), queue.end());
        const auto count = static_cast<std::int32_t>(symbols.size());
        while (!queue.empty()) {
            std::pop_heap(queue.begin(), queue.end());
            const Candidate top = queue.back();
            queue.pop_back();
            Symbol &left = symbols[static_cast<std::size_t>(top.pos)];
            if (left.len == 0 || left.next == -1) {
                continue;
            }
            const std::int32_t right_pos = left.next;
            const Symbol right = symbols[static_cast<std::size_t>(right_pos)];
            const auto *current = merges_.find(left.id, right.id);
            if (current == nullptr || current->id != top.id) {
                continue; // an outdated entry
            }
            left.id = top.id;
            left.len += right.len;
            left.next = right.next;
            symbols[static_cast<std::size_t>(right_pos)].len = 0;
            if (right.next > -1 && right.next < count) {
                symbols[static_cast<std::size_t>(right.next)].prev = top.pos;
            }
            if (left.prev >= 0) {
                const Symbol &prev = symbols[static_cast<std::size_t>(left.prev)];
                if (const auto *m = merges_.find(prev.id, left.id)) {
                    queue.push_back({m->rank, left.prev, m->id});
                    std::push_heap(queue.begin(), queue.end());
                }
            }
            if (left.next >= 0 && left.next < count) {
                const Symbol &next = symbols[static_cast<std::size_t>(left.next)];
                if (const auto *m = merges_.find(left.id, next.id)) {
                    queue.push_back({m->rank, top.pos, m->id});
                    std::push_heap(queue.begin(), queue.end());
                }
            }
        }
    }

    BpeOptions options_;
    MergeMap merges_;
    std::array<std::int32_t, 256> byte_ids_{};
    std::optional<std::int32_t> unk_id_;
    mutable std::shared_mutex cache_mutex_;
    mutable std::unordered_map<std::string, std::vector<ModelToken>> cache_;
};

} // namespace

std::unique_ptr<Model> makeBpe(Vocab vocab,
                               const std::vector<std::pair<std::string, std::string>> &merges,
                               const BpeOptions &options) {
    return std::make_unique<BpeModel>(std::move(vocab), merges, options);
}

} // namespace headroom::tokenizers
