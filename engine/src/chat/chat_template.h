#pragma once

// A model's chat template, ready to render conversations as transformers' apply_chat_template
// does: the template's global variables are the messages, the tools, add_generation_prompt,
// the tokenizer's special token strings and the record's chat_template_kwargs.

#include "chat/conversation.h"
#include "chat/jinja/template.h"

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace headroom::chat {

// A template that does not parse, or a data.chat_template setting that names no template.
class ChatTemplateError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct TemplateSource {
    std::string text;
    // Special token strings by name ("bos_token", "eos_token", ...), as the template sees them.
    nlohmann::ordered_json special_tokens = nlohmann::ordered_json::object();
    std::string origin; // where the text came from, for messages
    // strftime_now(format) for the template; empty: the current local time.
    std::function<std::string(const std::string &format)> strftime_now;
};

// ChatML (<|im_start|>role ... <|im_end|>), for a base without a template of its own.
TemplateSource chatmlTemplate();

class ChatTemplate {
public:
    // Throws ChatTemplateError naming the origin and line of a template that does not parse.
    explicit ChatTemplate(TemplateSource source);

    // The first `message_count` messages (all when it is larger), with the assistant's header
    // after them when add_generation_prompt. Throws ConversationError with the template's own
    // message when it refuses the conversation (raise_exception) or fails on it.
    jinja::Rendered render(const Conversation &conversation, std::size_t message_count,
                           bool add_generation_prompt) const;
    jinja::Rendered render(const Conversation &conversation, bool add_generation_prompt) const {
        return render(conversation, conversation.messages.size(), add_generation_prompt);
    }

    bool hasGenerationBlocks() const { return template_.hasGenerationBlocks(); }
    // What the template writes after an assistant's content to end its turn ("<|im_end|>\n"),
    // learned from a one-turn probe; empty when the probe could not tell.
    const std::string &endOfTurn() const { return end_of_turn_; }
    const std::string &origin() const { return source_.origin; }
    const std::string &text() const { return source_.text; }
    const nlohmann::ordered_json &specialTokens() const { return source_.special_tokens; }

private:
    std::string learnEndOfTurn() const;

    TemplateSource source_;
    jinja::Template template_;
    std::string end_of_turn_;
};

} // namespace headroom::chat
