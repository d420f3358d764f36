#include "tokenizers/added_vocabulary.h"

#include "tokenizers/unicode.h"

namespace headroom::tokenizers {

void AddedVocabulary::Matcher::add(const std::string &pattern, std::size_t token_index) {
    if (pattern.empty()) {
        return;
    }
    std::uint32_t node = 0;
    for (const char c : pattern) {
        const auto byte = static_cast<unsigned char>(c);
        const auto it = nodes_[node].next.find(byte);
        if (it == nodes_[node].next.end()) {
            const auto created = static_cast<std::uint32_t>(nodes_.size());
            nodes_[node].next.emplace(byte, created);
            nodes_.emplace_back();
            node = created;
        } else {
            node = it->second;
        }
    }
    if (nodes_[node].token < 0) { // the first token with this content wins
        nodes_[node].token = static_cast<std::int64_t>(token_index);
    }
    first_[static_cast<unsigned char>(pattern[0])] = true;
}

void AddedVocabulary::Matcher::find(std::string_view text,
                                    std::vector<std::array<std::size_t, 3>> &matches) const {
    if (empty()) {
        return;
    }
    std::size_t start = 0;
    while (start < text.size()) {
        if (!first_[static_cast<unsigned char>(text[start])]) {
            ++start;
            continue;
        }
        std::uint32_t node = 0;
        std::size_t best_end = 0;
        std::int64_t best = -1;
        for (std::size_t pos = start; pos < text.size(); ++pos) {
            const auto &next = nodes_[node].next;
            const auto it = next.find(static_cast<unsigned char>(text[pos]));
            if (it == next.end()) {
                break;
            }
            node = it->second;
            if (nodes_[node].token >= 0) {
                best = nodes_[node].token;
                best_end = pos + 1;
            }
        }
        if (best >= 0) {
            matches.push_back({start, best_end, static_cast<std::size_t>(best)});
            start = best_end;
        } else {
            ++start;
        }
    }
}

void AddedVocabulary::build(std::vector<AddedToken> tokens, const Normalizer *normalizer) {
    tokens_ = std::move(tokens);
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
        const AddedToken &token = tokens_[i];
        by_id_.emplace(token.id, i);
        by_content_.emplace(token.content, i);
        if (token.normalized) {
            std::string pattern = token.content;
            if (normalizer != nullptr) {
                normalizer->normalize(pattern);
            }
            normalized_.add(pattern, i);
        } else {
            raw_.add(token.content, i);
        }
    }
}

const AddedToken *AddedVocabulary::byId(std::int32_t id) const {
    const auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : &tokens_[it->second];
}

const AddedToken *AddedVocabulary::byContent(const std::string &content) const {
    const auto it = by_content_.find(content);
    return it == by_content_.end() ? nullptr : &tokens_[it->second];
}

namespace {

bool endsWithWordChar(std::string_view text) {
    if (text.empty()) {
        return false;
    }
    std::size_t start = 0;
    return isWordChar(previousChar(text, text.size(), start));
}

bool startsWithWordChar(std::string_view text) {
    if (text.empty()) {
        return false;
    }
    std::size_t pos = 0;
    return isWordChar(nextChar(text, pos));
}

} // namespace

void AddedVocabulary::split(const Piece &piece, const Matcher &matcher, Pieces &out) const {
    std::vector<std::array<std::size_t, 3>> matches;
    matcher.find(piece.text, matches);
    if (matches.empty()) {
        out.push_back(piece);
        return;
    }
    const std::string_view text(piece.text);
    std::vector<Span> spans;
    std::vector<std::int32_t> ids;
    std::size_t start_offset = 0;
    for (const auto &[match_start, match_end, index] : matches) {
        const AddedToken &token = tokens_[index];
        std::size_t start = match_start, stop = match_end;
        if (token.single_word) {
            const bool start_space = start == 0 || !endsWithWordChar(text.substr(0, start));
            const bool stop_space = stop == text.size() || !startsWithWordChar(text.substr(stop));
            if (!start_space || !stop_space) {
                continue;
            }
        }
        if (token.lstrip) {
            std::size_t new_start = start;
            while (new_start > 0) {
                std::size_t previous = 0;
                if (!isWhitespace(previousChar(text, new_start, previous))) {
                    break;
                }
                new_start = previous;
            }
            start = std::max(new_start, start_offset);
        }
        if (token.rstrip) {
            while (stop < text.size()) {
                std::size_t next = stop;
                if (!isWhitespace(nextChar(text, next))) {
                    break;
                }
                stop = next;
            }
        }
        if (start_offset < start) {
            spans.push_back({start_offset, start, false});
            ids.push_back(-1);
        }
        spans.push_back({start, stop, true});
        ids.push_back(token.id);
        start_offset = stop;
    }
    if (start_offset != text.size()) {
        spans.push_back({start_offset, text.size(), false});
        ids.push_back(-1);
    }
    for (std::size_t i = 0; i < spans.size(); ++i) {
        if (spans[i].start >= spans[i].end) {
            continue;
        }
        Piece result;
        result.text.assign(piece.text, spans[i].start, spans[i].end - spans[i].start);
        const auto range = inputRange(piece, spans[i].start, spans[i].end);
        result.begin = range.first;
        result.end = range.second;
        result.mode = piece.mode;
        result.added_id = ids[i];
        out.push_back(std::move(result));
    }
}

void AddedVocabulary::extract(const std::string &text, const Normalizer *normalizer,
                              Pieces &out) const {
    Piece whole;
    whole.text = text;
    whole.begin = 0;
    whole.end = text.size();
    Pieces raw;
    split(whole, raw_, raw);
    for (Piece &piece : raw) {
        if (piece.added_id >= 0) {
            out.push_back(std::move(piece));
            continue;
        }
        if (normalizer != nullptr) {
            const std::string before = piece.text;
            normalizer->normalize(piece.text);
            if (piece.text != before) {
                piece.mode = OffsetMode::Opaque;
            }
        }
        if (piece.text.empty()) {
            continue;
        }
        if (normalized_.empty()) {
            out.push_back(std::move(piece));
        } else {
            split(piece, normalized_, out);
        }
    }
}

} // namespace headroom::tokenizers
