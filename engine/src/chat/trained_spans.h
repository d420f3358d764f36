#pragma once

// Which bytes of a rendered conversation a model learns to produce.
//
// Where the template marks the assistant's text with {% generation %} blocks, those blocks.
// Otherwise, for each assistant message i, the prefix rule: the text that rendering messages
// [0, i] adds to rendering messages [0, i) with the generation prompt — the reply and its
// end-of-turn, not the assistant's header. It holds when both renderings are prefixes of the
// whole conversation's rendering. Templates that render earlier turns differently from the
// last (Qwen3 drops the reasoning of earlier turns) break it; for those messages the fallback
// renders the conversation again with the message's content emptied: the bytes where the two
// renderings differ are the message's content as the whole rendering holds it, and the
// template's end-of-turn text (ChatTemplate::endOfTurn) is added when it follows there.

#include "chat/chat_template.h"
#include "chat/conversation.h"

#include <cstddef>
#include <string>
#include <vector>

namespace headroom::chat {

enum class TrainOn { Assistant, LastAssistant, All };
// "assistant" | "last_assistant" | "all"; throws std::invalid_argument.
TrainOn parseTrainOn(const std::string &text);
std::string toString(TrainOn train_on);

enum class SpanMethod { Generation, Prefix, Fallback };
std::string toString(SpanMethod method);

struct ByteSpan {
    std::size_t begin = 0;
    std::size_t end = 0;
};

struct TrainingText {
    std::string text;              // the whole conversation, rendered without generation prompt
    std::vector<ByteSpan> trained; // sorted, non-overlapping byte ranges of `text`
    // How each assistant message's span was found (empty for TrainOn::All).
    std::vector<SpanMethod> methods;
};

// Throws ConversationError when the template refuses the conversation, or when train_on asks
// for assistant messages and there are none.
TrainingText renderForTraining(const ChatTemplate &chat_template, const Conversation &conversation,
                               TrainOn train_on);

} // namespace headroom::chat
