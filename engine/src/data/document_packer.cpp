#include "data/document_packer.h"

#include <algorithm>

namespace headroom::data {

DocumentPacker::DocumentPacker(std::int64_t window, std::size_t lookahead, std::int32_t padding_id)
    : window_(static_cast<std::size_t>(window)), lookahead_(std::max<std::size_t>(1, lookahead)),
      padding_id_(padding_id) {}

void DocumentPacker::add(std::vector<std::int32_t> tokens, std::vector<std::uint8_t> trained) {
    if (trained.empty()) {
        trained.assign(tokens.size(), 1);
    }
    for (std::size_t begin = 0; begin < tokens.size(); begin += window_) {
        const std::size_t end = std::min(tokens.size(), begin + window_);
        const auto first = static_cast<std::ptrdiff_t>(begin);
        const auto last = static_cast<std::ptrdiff_t>(end);
        pending_.push_back(
            {std::vector<std::int32_t>(tokens.begin() + first, tokens.begin() + last),
             std::vector<std::uint8_t>(trained.begin() + first, trained.begin() + last)});
    }
}

bool DocumentPacker::take(Example &out, bool flush) {
    if (pending_.empty() || (!flush && !full())) {
        return false;
    }
    out = Example{};
    out.tokens.reserve(window_);
    out.trained.reserve(window_);
    const auto place = [&out](const Document &document) {
        out.tokens.insert(out.tokens.end(), document.tokens.begin(), document.tokens.end());
        out.trained.insert(out.trained.end(), document.trained.begin(), document.trained.end());
        // The token that starts a document follows another document's last: never a target.
        out.trained[out.trained.size() - document.tokens.size()] = 0;
        out.segment_lengths.push_back(static_cast<std::int32_t>(document.tokens.size()));
    };
    place(pending_.front());
    pending_.pop_front();
    while (out.tokens.size() < window_) {
        const std::size_t room = window_ - out.tokens.size();
        auto best = pending_.end();
        for (auto it = pending_.begin(); it != pending_.end(); ++it) {
            const std::size_t size = it->tokens.size();
            if (size <= room && (best == pending_.end() || size > best->tokens.size())) {
                best = it;
                if (size == room) {
                    break;
                }
            }
        }
        if (best == pending_.end()) {
            break;
        }
        place(*best);
        pending_.erase(best);
    }
    out.real_tokens = static_cast<std::int32_t>(out.tokens.size());
    if (out.tokens.size() < window_) {
        out.segment_lengths.push_back(static_cast<std::int32_t>(window_ - out.tokens.size()));
        out.tokens.resize(window_, padding_id_);
        out.trained.resize(window_, 0);
    }
    ++taken_;
    return true;
}

void DocumentPacker::clear() {
    pending_.clear();
    taken_ = 0;
}

void DocumentPacker::save(StateWriter &writer) const {
    writer.u64(taken_);
    writer.u64(pending_.size());
    for (const Document &document : pending_) {
        writer.tokens(document.tokens);
        writer.str(std::string(document.trained.begin(), document.trained.end()));
    }
}

void DocumentPacker::load(StateReader &reader) {
    const std::uint64_t taken = reader.u64();
    const std::uint64_t count = reader.u64();
    std::deque<Document> pending;
    for (std::uint64_t i = 0; i < count; ++i) {
        Document document;
        document.tokens = reader.tokens();
        const std::string trained = reader.str();
        document.trained.assign(trained.begin(), trained.end());
        if (document.tokens.empty() || document.tokens.size() > window_ ||
            document.trained.size() != document.tokens.size()) {
            reader.fail("a document waiting to be packed does not fit the window");
        }
        pending.push_back(std::move(document));
    }
    taken_ = taken;
    pending_ = std::move(pending);
}

} // namespace headroom::data
