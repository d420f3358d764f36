#pragma once

#include "data/example.h"
#include "data/state_codec.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace headroom::data {

// Places short documents (records of text, prompt/completion or conversation data) into windows
// of `window` tokens (seq_len + 1) for data.packing=1. Best fit over a look-ahead buffer: each
// window starts with the oldest buffered document, then takes the longest buffered document
// that still fits, again and again, so documents wait at most until the buffer moves past them
// and windows come out nearly full. A document longer than a window is split into window-long
// pieces. The window's segment_lengths are its documents' lengths (then the padding's, when it
// has any); its trained mask keeps each document's own and never trains a document's first
// token (nothing in the window predicts it); real_tokens counts the documents' tokens.
class DocumentPacker {
public:
    DocumentPacker(std::int64_t window, std::size_t lookahead, std::int32_t padding_id);

    bool full() const { return pending_.size() >= lookahead_; }
    // tokens and, per token, whether it is trained (empty: every token is).
    void add(std::vector<std::int32_t> tokens, std::vector<std::uint8_t> trained);
    // The next window once the buffer is full, or with `flush` (the data is exhausted) while
    // any document is left.
    bool take(Example &out, bool flush);
    void clear();
    std::uint64_t windowsTaken() const { return taken_; }

    void save(StateWriter &writer) const;
    void load(StateReader &reader);

private:
    struct Document {
        std::vector<std::int32_t> tokens;
        std::vector<std::uint8_t> trained;
    };

    std::size_t window_;
    std::size_t lookahead_;
    std::int32_t padding_id_;
    std::deque<Document> pending_;
    std::uint64_t taken_ = 0;
};

} // namespace headroom::data
