#include "tokenizers/pieces.h"

#include "tokenizers/unicode.h"

#include <algorithm>

namespace headroom::tokenizers {

std::pair<std::size_t, std::size_t> inputRange(const Piece &piece, std::size_t from,
                                               std::size_t to) {
    switch (piece.mode) {
    case OffsetMode::Exact:
        return {piece.begin + from, piece.begin + to};
    case OffsetMode::ByteMapped: {
        const std::string_view text(piece.text);
        const std::size_t first = countChars(text.substr(0, from));
        const std::size_t count = countChars(text.substr(from, to - from));
        return {piece.begin + first, piece.begin + first + count};
    }
    case OffsetMode::Opaque:
        break;
    }
    return {std::min(piece.begin + from, piece.end), std::min(piece.begin + to, piece.end)};
}

namespace {

void emit(const Piece &piece, std::size_t from, std::size_t to, Pieces &out) {
    if (from >= to) {
        return;
    }
    Piece result;
    result.text.assign(piece.text, from, to - from);
    result.mode = piece.mode;
    if (piece.mode == OffsetMode::ByteMapped) {
        // Counting characters from the piece start for every split would be quadratic.
        const std::string_view text(piece.text);
        result.begin = piece.begin + countChars(text.substr(0, from));
        result.end = result.begin + countChars(text.substr(from, to - from));
    } else {
        const auto range = inputRange(piece, from, to);
        result.begin = range.first;
        result.end = range.second;
    }
    out.push_back(std::move(result));
}

} // namespace

void splitPiece(const Piece &piece, const std::vector<Span> &spans, SplitBehavior behavior,
                Pieces &out) {
    // (start, end, removed)
    struct Part {
        std::size_t start, end;
        bool removed;
    };
    std::vector<Part> parts;
    parts.reserve(spans.size());
    switch (behavior) {
    case SplitBehavior::Isolated:
        for (const Span &s : spans) {
            parts.push_back({s.start, s.end, false});
        }
        break;
    case SplitBehavior::Removed:
        for (const Span &s : spans) {
            parts.push_back({s.start, s.end, s.match});
        }
        break;
    case SplitBehavior::Contiguous: {
        bool previous_match = false;
        for (const Span &s : spans) {
            if (s.match == previous_match && !parts.empty()) {
                parts.back().end = s.end;
            } else {
                parts.push_back({s.start, s.end, false});
            }
            previous_match = s.match;
        }
        break;
    }
    case SplitBehavior::MergedWithPrevious: {
        bool previous_match = false;
        for (const Span &s : spans) {
            if (s.match && !previous_match && !parts.empty()) {
                parts.back().end = s.end;
            } else {
                parts.push_back({s.start, s.end, false});
            }
            previous_match = s.match;
        }
        break;
    }
    case SplitBehavior::MergedWithNext: {
        bool previous_match = false;
        for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
            if (it->match && !previous_match && !parts.empty()) {
                parts.back().start = it->start;
            } else {
                parts.push_back({it->start, it->end, false});
            }
            previous_match = it->match;
        }
        std::reverse(parts.begin(), parts.end());
        break;
    }
    }
    for (const Part &p : parts) {
        if (!p.removed) {
            emit(piece, p.start, p.end, out);
        }
    }
}

} // namespace headroom::tokenizers
