#include "data/token_windows.h"

#include <algorithm>

namespace headroom::data {

TokenWindows::TokenWindows(std::int64_t window, std::int64_t stride)
    : window_(static_cast<std::size_t>(window)), stride_(static_cast<std::size_t>(stride)) {}

void TokenWindows::append(const std::vector<std::int32_t> &tokens) {
    auto first = tokens.begin();
    const auto dropped = static_cast<std::size_t>(
        std::min<std::uint64_t>(skip_, static_cast<std::uint64_t>(tokens.size())));
    skip_ -= dropped;
    first += static_cast<std::ptrdiff_t>(dropped);
    // Compact before growing so the buffer stays about one window plus one record long.
    if (begin_ > 0 && begin_ >= pending_.size() / 2) {
        pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(begin_));
        begin_ = 0;
    }
    pending_.insert(pending_.end(), first, tokens.end());
}

bool TokenWindows::take(std::vector<std::int32_t> &out) {
    if (skip_ > 0 || available() < window_) {
        return false;
    }
    const auto start = pending_.begin() + static_cast<std::ptrdiff_t>(begin_);
    out.assign(start, start + static_cast<std::ptrdiff_t>(window_));
    ++taken_;
    if (stride_ <= available()) {
        begin_ += stride_;
    } else {
        skip_ = stride_ - available();
        pending_.clear();
        begin_ = 0;
    }
    return true;
}

void TokenWindows::clear() {
    pending_.clear();
    begin_ = 0;
    skip_ = 0;
    taken_ = 0;
}

void TokenWindows::save(StateWriter &writer) const {
    writer.tokens(std::vector<std::int32_t>(pending_.begin() + static_cast<std::ptrdiff_t>(begin_),
                                            pending_.end()));
    writer.u64(skip_);
    writer.u64(taken_);
}

void TokenWindows::load(StateReader &reader) {
    pending_ = reader.tokens();
    begin_ = 0;
    skip_ = reader.u64();
    taken_ = reader.u64();
}

} // namespace headroom::data
