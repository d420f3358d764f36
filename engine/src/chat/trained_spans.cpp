#include "chat/trained_spans.h"

#include "util/text.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace headroom::chat {

namespace {

bool isAssistant(const nlohmann::ordered_json &message) {
    return message.at("role").get<std::string>() == "assistant";
}

std::optional<ByteSpan> prefixRuleSpan(const ChatTemplate &chat_template,
                                       const Conversation &conversation, std::size_t index,
                                       const std::string &whole) {
    try {
        const std::string before = chat_template.render(conversation, index, true).text;
        const std::string through = chat_template.render(conversation, index + 1, false).text;
        if (util::startsWith(through, before) && util::startsWith(whole, through)) {
            return ByteSpan{before.size(), through.size()};
        }
    } catch (const ConversationError &) {
        // A template may refuse a partial conversation (one ending on a tool call, say).
    }
    return std::nullopt;
}

ByteSpan contentDifferenceSpan(const ChatTemplate &chat_template, const Conversation &conversation,
                               std::size_t index, const std::string &whole) {
    Conversation emptied = conversation;
    nlohmann::ordered_json &message = emptied.messages[index];
    message["content"] = "";
    message.erase("reasoning_content");
    const std::string other = chat_template.render(emptied, false).text;
    const std::size_t limit = std::min(whole.size(), other.size());
    std::size_t prefix = 0;
    while (prefix < limit && whole[prefix] == other[prefix]) {
        ++prefix;
    }
    std::size_t suffix = 0;
    while (suffix < limit - prefix &&
           whole[whole.size() - 1 - suffix] == other[other.size() - 1 - suffix]) {
        ++suffix;
    }
    std::size_t end = whole.size() - suffix;
    const std::string &end_of_turn = chat_template.endOfTurn();
    if (!end_of_turn.empty() && whole.compare(end, end_of_turn.size(), end_of_turn) == 0) {
        end += end_of_turn.size();
    }
    return ByteSpan{prefix, end};
}

// Sorted, with touching or overlapping spans merged and empty ones dropped.
std::vector<ByteSpan> normalized(std::vector<ByteSpan> spans) {
    std::sort(spans.begin(), spans.end(),
              [](const ByteSpan &a, const ByteSpan &b) { return a.begin < b.begin; });
    std::vector<ByteSpan> merged;
    for (const ByteSpan &span : spans) {
        if (span.end <= span.begin) {
            continue;
        }
        if (!merged.empty() && span.begin <= merged.back().end) {
            merged.back().end = std::max(merged.back().end, span.end);
        } else {
            merged.push_back(span);
        }
    }
    return merged;
}

} // namespace

TrainOn parseTrainOn(const std::string &text) {
    if (text == "assistant") {
        return TrainOn::Assistant;
    }
    if (text == "last_assistant") {
        return TrainOn::LastAssistant;
    }
    if (text == "all") {
        return TrainOn::All;
    }
    throw std::invalid_argument("\"" + text + "\" is not assistant, last_assistant or all");
}

std::string toString(TrainOn train_on) {
    switch (train_on) {
    case TrainOn::Assistant:
        return "assistant";
    case TrainOn::LastAssistant:
        return "last_assistant";
    case TrainOn::All:
        return "all";
    }
    return "assistant";
}

std::string toString(SpanMethod method) {
    switch (method) {
    case SpanMethod::Generation:
        return "generation";
    case SpanMethod::Prefix:
        return "prefix";
    case SpanMethod::Fallback:
        return "fallback";
    }
    return "prefix";
}

TrainingText renderForTraining(const ChatTemplate &chat_template, const Conversation &conversation,
                               TrainOn train_on) {
    TrainingText result;
    const jinja::Rendered whole = chat_template.render(conversation, false);
    result.text = whole.text;
    if (train_on == TrainOn::All) {
        result.trained = normalized({ByteSpan{0, result.text.size()}});
        return result;
    }
    std::vector<std::size_t> assistants;
    for (std::size_t index = 0; index < conversation.messages.size(); ++index) {
        if (isAssistant(conversation.messages[index])) {
            assistants.push_back(index);
        }
    }
    if (assistants.empty()) {
        throw ConversationError("the conversation has no assistant message to learn from");
    }
    if (chat_template.hasGenerationBlocks()) {
        std::vector<ByteSpan> blocks;
        for (const auto &[begin, end] : whole.generation_spans) {
            blocks.push_back(ByteSpan{begin, end});
        }
        blocks = normalized(std::move(blocks));
        if (train_on == TrainOn::LastAssistant && !blocks.empty()) {
            blocks.erase(blocks.begin(), blocks.end() - 1);
        }
        result.trained = std::move(blocks);
        result.methods.assign(train_on == TrainOn::LastAssistant ? 1 : assistants.size(),
                              SpanMethod::Generation);
        return result;
    }
    if (train_on == TrainOn::LastAssistant) {
        assistants.erase(assistants.begin(), assistants.end() - 1);
    }
    for (const std::size_t index : assistants) {
        if (const auto span = prefixRuleSpan(chat_template, conversation, index, result.text)) {
            result.trained.push_back(*span);
            result.methods.push_back(SpanMethod::Prefix);
        } else {
            result.trained.push_back(
                contentDifferenceSpan(chat_template, conversation, index, result.text));
            result.methods.push_back(SpanMethod::Fallback);
        }
    }
    result.trained = normalized(std::move(result.trained));
    return result;
}

} // namespace headroom::chat
