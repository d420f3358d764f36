#include "chat/chat_tokens.h"

#include <utility>

namespace headroom::chat {

namespace {

ChatTokens markByOffsets(std::vector<std::int32_t> ids,
                         const std::vector<std::pair<std::size_t, std::size_t>> &offsets,
                         const std::vector<ByteSpan> &spans) {
    ChatTokens tokens;
    tokens.ids = std::move(ids);
    tokens.trained.assign(tokens.ids.size(), 0);
    std::size_t span = 0;
    for (std::size_t token = 0; token < tokens.ids.size(); ++token) {
        const auto [begin, end] = offsets[token];
        while (span < spans.size() && spans[span].end <= begin) {
            tokens.turn_ends.push_back(token);
            ++span;
        }
        if (span < spans.size() && begin < spans[span].end && end > spans[span].begin) {
            tokens.trained[token] = 1;
        }
    }
    for (; span < spans.size(); ++span) {
        tokens.turn_ends.push_back(tokens.ids.size());
    }
    return tokens;
}

ChatTokens markByPieces(const data::Tokenizer &tokenizer, const TrainingText &text) {
    ChatTokens tokens;
    const auto append = [&](std::size_t begin, std::size_t end, bool trained) {
        if (end <= begin) {
            return;
        }
        const std::vector<std::int32_t> ids =
            tokenizer.encode(text.text.substr(begin, end - begin));
        tokens.ids.insert(tokens.ids.end(), ids.begin(), ids.end());
        tokens.trained.insert(tokens.trained.end(), ids.size(), trained ? 1 : 0);
    };
    std::size_t at = 0;
    for (const ByteSpan &span : text.trained) {
        append(at, span.begin, false);
        append(span.begin, span.end, true);
        tokens.turn_ends.push_back(tokens.ids.size());
        at = span.end;
    }
    append(at, text.text.size(), false);
    return tokens;
}

} // namespace

ChatTokens tokenizeTrainingText(const data::Tokenizer &tokenizer, const TrainingText &text) {
    std::vector<std::int32_t> ids;
    std::vector<std::pair<std::size_t, std::size_t>> offsets;
    if (tokenizer.encodeWithOffsets(text.text, ids, offsets) && offsets.size() == ids.size()) {
        return markByOffsets(std::move(ids), offsets, text.trained);
    }
    return markByPieces(tokenizer, text);
}

} // namespace headroom::chat
