#pragma once

// The text as it flows through the pipeline: pieces of (normalized) text, each knowing where
// it came from in the input, as the reference's PreTokenizedString splits do.

#include "tokenizers/regex.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::tokenizers {

// How the bytes of a piece map back to the input.
enum class OffsetMode : std::uint8_t {
    Exact,      // piece byte i is input byte begin + i
    ByteMapped, // piece character i stands for input byte begin + i (after ByteLevel)
    Opaque,     // rewritten by a normalizer: only [begin, end) is known
};

struct Piece {
    std::string text;
    std::size_t begin = 0; // input byte range
    std::size_t end = 0;
    OffsetMode mode = OffsetMode::Exact;
    std::int32_t added_id = -1; // an added token matched in the text: not pre-tokenized
};

using Pieces = std::vector<Piece>;

// The reference's SplitDelimiterBehavior.
enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

// Splits `piece` on `spans` (matches and gaps covering its text) with `behavior`, appending
// the non-empty results to `out`.
void splitPiece(const Piece &piece, const std::vector<Span> &spans, SplitBehavior behavior,
                Pieces &out);

// The input range of piece.text[from, to).
std::pair<std::size_t, std::size_t> inputRange(const Piece &piece, std::size_t from,
                                               std::size_t to);

} // namespace headroom::tokenizers
