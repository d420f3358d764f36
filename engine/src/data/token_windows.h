#pragma once

#include "data/state_codec.h"

#include <cstdint>
#include <vector>

namespace headroom::data {

// Cuts a growing token stream into windows of `window` tokens, one starting every `stride`
// tokens (windows overlap when stride < window, tokens are skipped when stride > window).
// Holds only the tokens not yet behind the next window's start.
class TokenWindows {
public:
    TokenWindows(std::int64_t window, std::int64_t stride);

    void append(const std::vector<std::int32_t> &tokens);
    // The next full window, if the stream holds one.
    bool take(std::vector<std::int32_t> &out);
    void clear();
    std::uint64_t windowsTaken() const { return taken_; }

    void save(StateWriter &writer) const;
    void load(StateReader &reader);

private:
    std::size_t available() const { return pending_.size() - begin_; }

    std::size_t window_;
    std::size_t stride_;
    std::vector<std::int32_t> pending_;
    std::size_t begin_ = 0;  // start of the next window inside pending_
    std::uint64_t skip_ = 0; // tokens still to drop before the next window starts
    std::uint64_t taken_ = 0;
};

} // namespace headroom::data
