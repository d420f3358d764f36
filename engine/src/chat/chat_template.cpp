#include "chat/chat_template.h"

#include <chrono>
#include <ctime>
#include <optional>
#include <utility>

namespace headroom::chat {

namespace {

using ordered_json = nlohmann::ordered_json;

// Written for Headroom: ChatML turns, text parts joined, tool calls as <tool_call> JSON.
constexpr const char *kChatml = R"jinja({%- for message in messages -%}
{{- '<|im_start|>' + message['role'] + '\n' -}}
{%- if message['content'] is string -%}
{{- message['content'] -}}
{%- elif message['content'] is iterable -%}
{%- for part in message['content'] -%}{{- part['text'] -}}{%- endfor -%}
{%- endif -%}
{%- if message['tool_calls'] is defined and message['tool_calls'] -%}
{%- for call in message['tool_calls'] -%}
{%- set function = call['function'] if call['function'] is defined else call -%}
{{- '\n<tool_call>\n' + {'name': function['name'], 'arguments': function['arguments']} | tojson + '\n</tool_call>' -}}
{%- endfor -%}
{%- endif -%}
{{- '<|im_end|>\n' -}}
{%- endfor -%}
{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\n' -}}{%- endif -%})jinja";

std::string formatNow(const std::string &format) {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm local{};
    localtime_r(&now, &local);
    char text[256];
    const std::size_t length = std::strftime(text, sizeof text, format.c_str(), &local);
    return std::string(text, length);
}

jinja::Template parseTemplate(const TemplateSource &source) {
    try {
        return jinja::Template(source.text);
    } catch (const jinja::TemplateError &error) {
        throw ChatTemplateError(
            "the chat template of " + source.origin + " does not parse" +
            (error.line() > 0 ? " (line " + std::to_string(error.line()) + ")" : std::string()) +
            ": " + error.what());
    }
}

} // namespace

TemplateSource chatmlTemplate() {
    TemplateSource source;
    source.text = kChatml;
    source.origin = "the built-in ChatML template";
    return source;
}

ChatTemplate::ChatTemplate(TemplateSource source)
    : source_(std::move(source)), template_(parseTemplate(source_)) {
    end_of_turn_ = learnEndOfTurn();
}

jinja::Rendered ChatTemplate::render(const Conversation &conversation, std::size_t message_count,
                                     bool add_generation_prompt) const {
    ordered_json variables = source_.special_tokens;
    if (message_count >= conversation.messages.size()) {
        variables["messages"] = conversation.messages;
    } else {
        ordered_json messages = ordered_json::array();
        for (std::size_t index = 0; index < message_count; ++index) {
            messages.push_back(conversation.messages[index]);
        }
        variables["messages"] = std::move(messages);
    }
    if (!conversation.tools.is_null()) {
        variables["tools"] = conversation.tools;
    }
    variables["add_generation_prompt"] = add_generation_prompt;
    for (const auto &[name, value] : conversation.template_kwargs.items()) {
        variables[name] = value;
    }
    jinja::RenderOptions options;
    options.strftime_now = source_.strftime_now ? source_.strftime_now : formatNow;
    try {
        return template_.render(variables, options);
    } catch (const jinja::TemplateError &error) {
        if (error.raisedByTemplate()) {
            throw ConversationError(std::string("the chat template refuses it: ") + error.what());
        }
        throw ConversationError(
            "the chat template (" + source_.origin + ") fails on it" +
            (error.line() > 0 ? " at line " + std::to_string(error.line()) : std::string()) + ": " +
            error.what());
    }
}

// What follows an assistant's reply in both [user, assistant] and [user, assistant, user]
// renderings: the end-of-turn without an end-of-text some templates write after the last
// turn only (Phi-3).
std::string ChatTemplate::learnEndOfTurn() const {
    Conversation probe;
    probe.messages = ordered_json::array({ordered_json{{"role", "user"}, {"content", "Hi"}},
                                          ordered_json{{"role", "assistant"}, {"content", "Hello"}},
                                          ordered_json{{"role", "user"}, {"content", "Bye"}}});
    const auto afterReply = [](const std::string &text) -> std::optional<std::string> {
        const std::size_t at = text.rfind("Hello");
        if (at == std::string::npos) {
            return std::nullopt;
        }
        return text.substr(at + 5);
    };
    std::optional<std::string> tail;
    try {
        tail = afterReply(render(probe, 2, false).text);
    } catch (const ConversationError &) {
        return {};
    }
    if (!tail) {
        return {};
    }
    try {
        if (const auto next = afterReply(render(probe, 3, false).text)) {
            std::size_t common = 0;
            while (common < tail->size() && common < next->size() &&
                   (*tail)[common] == (*next)[common]) {
                ++common;
            }
            tail->resize(common);
        }
    } catch (const ConversationError &) {
        // A template that refuses the longer probe: the first tail alone.
    }
    return *tail;
}

} // namespace headroom::chat
