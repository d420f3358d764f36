#pragma once

// One conversation of chat data, in the OpenAI `messages` form that chat templates read.

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace headroom::chat {

// A record that is not a usable conversation, or one its template cannot render. The message
// names the problem without the file and line, which the data reader adds.
class ConversationError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Conversation {
    // An array of {"role", "content", ...} objects: system, user, assistant or tool; content a
    // string or a list of {"type": "text", "text": ...} parts (a tool's result any JSON value);
    // assistant messages may carry "tool_calls" and "reasoning_content". ShareGPT records are
    // converted to this form.
    nlohmann::ordered_json messages = nlohmann::ordered_json::array();
    nlohmann::ordered_json tools;                                              // null or an array
    nlohmann::ordered_json template_kwargs = nlohmann::ordered_json::object(); // extra variables
};

// True when the record holds "messages" or "conversations" (ShareGPT).
bool isConversationRecord(const nlohmann::ordered_json &record);

// The conversation of a record with "messages" (OpenAI) or "conversations" (ShareGPT: "from"
// human/gpt/system/tool, "value"), plus its optional "tools" and "chat_template_kwargs".
// Throws ConversationError naming the message and field at fault.
Conversation readConversation(const nlohmann::ordered_json &record);

// The messages' text contents, one per line, without roles or template: what a tokenizer
// trained on chat data learns from.
std::string messageTexts(const Conversation &conversation);

} // namespace headroom::chat
