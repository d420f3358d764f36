#include "chat/conversation.h"

#include <array>
#include <string_view>
#include <utility>

namespace headroom::chat {

namespace {

using json = nlohmann::ordered_json;

constexpr std::array<std::string_view, 4> kRoles = {"system", "user", "assistant", "tool"};

// ShareGPT's speaker names and the roles they stand for.
constexpr std::array<std::pair<std::string_view, std::string_view>, 10> kShareGptRoles = {{
    {"human", "user"},
    {"user", "user"},
    {"gpt", "assistant"},
    {"assistant", "assistant"},
    {"model", "assistant"},
    {"system", "system"},
    {"tool", "tool"},
    {"function", "tool"},
    {"observation", "tool"},
    {"function_response", "tool"},
}};

[[noreturn]] void fail(std::size_t index, const std::string &problem) {
    throw ConversationError("message " + std::to_string(index + 1) + ": " + problem);
}

std::string typeOf(const json &value) {
    return value.type_name();
}

void checkContentParts(std::size_t index, const json &parts) {
    for (std::size_t part = 0; part < parts.size(); ++part) {
        const json &item = parts[part];
        const std::string where = "content part " + std::to_string(part + 1);
        if (!item.is_object()) {
            fail(index, where + " is a " + typeOf(item) + ", expected an object");
        }
        const auto type = item.find("type");
        if (type == item.end() || !type->is_string()) {
            fail(index, where + " has no \"type\"");
        }
        if (type->get<std::string>() != "text") {
            fail(index, where + " is of type \"" + type->get<std::string>() +
                            "\": only text parts can be trained on");
        }
        const auto text = item.find("text");
        if (text == item.end() || !text->is_string()) {
            fail(index, where + " has no string \"text\"");
        }
    }
}

void checkToolCalls(std::size_t index, const json &calls) {
    if (!calls.is_array()) {
        fail(index, "\"tool_calls\" is a " + typeOf(calls) + ", expected a list");
    }
    for (std::size_t call = 0; call < calls.size(); ++call) {
        const json &item = calls[call];
        const std::string where = "tool call " + std::to_string(call + 1);
        if (!item.is_object()) {
            fail(index, where + " is a " + typeOf(item) + ", expected an object");
        }
        const json *function = &item;
        if (const auto nested = item.find("function"); nested != item.end()) {
            if (!nested->is_object()) {
                fail(index,
                     where + ": \"function\" is a " + typeOf(*nested) + ", expected an object");
            }
            function = &*nested;
        }
        const auto name = function->find("name");
        if (name == function->end() || !name->is_string() || name->get<std::string>().empty()) {
            fail(index, where + " has no function \"name\"");
        }
    }
}

void checkMessage(std::size_t index, const json &message) {
    if (!message.is_object()) {
        fail(index, "is a " + typeOf(message) +
                        ", expected an object with \"role\" and "
                        "\"content\"");
    }
    const auto role = message.find("role");
    if (role == message.end() || !role->is_string()) {
        fail(index, "has no \"role\"");
    }
    const std::string name = role->get<std::string>();
    bool known = false;
    for (const std::string_view candidate : kRoles) {
        known = known || name == candidate;
    }
    if (!known) {
        fail(index, "unknown role \"" + name + "\" (roles: system, user, assistant, tool)");
    }
    const auto calls = message.find("tool_calls");
    const bool has_calls = calls != message.end() && !calls->is_null();
    if (has_calls) {
        if (name != "assistant") {
            fail(index, "only assistant messages carry \"tool_calls\"");
        }
        checkToolCalls(index, *calls);
    }
    const auto content = message.find("content");
    if (content == message.end() || content->is_null()) {
        if (!has_calls) {
            fail(index, "the " + name + " message has no \"content\"");
        }
    } else if (name == "tool") {
        // A tool's result may be any JSON value (Llama 3.1 writes an object with tojson).
    } else if (content->is_array()) {
        checkContentParts(index, *content);
    } else if (!content->is_string()) {
        fail(index, "\"content\" is a " + typeOf(*content) +
                        ", expected a string or a list of text parts");
    }
    if (const auto reasoning = message.find("reasoning_content");
        reasoning != message.end() && !reasoning->is_null() && !reasoning->is_string()) {
        fail(index, "\"reasoning_content\" is a " + typeOf(*reasoning) + ", expected a string");
    }
}

json fromShareGpt(const json &turns) {
    json messages = json::array();
    for (std::size_t index = 0; index < turns.size(); ++index) {
        const json &turn = turns[index];
        if (!turn.is_object()) {
            fail(index, "is a " + typeOf(turn) +
                            ", expected an object with \"from\" and "
                            "\"value\"");
        }
        const auto from = turn.find("from");
        if (from == turn.end() || !from->is_string()) {
            fail(index, "has no \"from\"");
        }
        const std::string speaker = from->get<std::string>();
        std::string_view role;
        for (const auto &[name, mapped] : kShareGptRoles) {
            if (speaker == name) {
                role = mapped;
            }
        }
        if (role.empty()) {
            fail(index, "unknown speaker \"" + speaker +
                            "\" (ShareGPT speakers: human, gpt, system, tool)");
        }
        const auto value = turn.find("value");
        if (value == turn.end() || !value->is_string()) {
            fail(index, "has no string \"value\"");
        }
        messages.push_back(json{{"role", std::string(role)}, {"content", *value}});
    }
    return messages;
}

} // namespace

std::string messageTexts(const Conversation &conversation) {
    std::string text;
    const auto add = [&text](const std::string &piece) {
        if (!piece.empty()) {
            text += text.empty() ? "" : "\n";
            text += piece;
        }
    };
    for (const json &message : conversation.messages) {
        const auto content = message.find("content");
        if (content == message.end()) {
            continue;
        }
        if (content->is_string()) {
            add(content->get<std::string>());
        } else if (content->is_array()) {
            for (const json &part : *content) {
                if (part.is_object() && part.contains("text") && part.at("text").is_string()) {
                    add(part.at("text").get<std::string>());
                }
            }
        }
    }
    return text;
}

bool isConversationRecord(const nlohmann::ordered_json &record) {
    return record.is_object() && (record.contains("messages") || record.contains("conversations"));
}

Conversation readConversation(const nlohmann::ordered_json &record) {
    Conversation conversation;
    const auto messages = record.find("messages");
    if (messages != record.end()) {
        if (!messages->is_array()) {
            throw ConversationError("\"messages\" is a " + typeOf(*messages) +
                                    ", expected a list of messages");
        }
        conversation.messages = *messages;
    } else {
        const auto turns = record.find("conversations");
        if (turns == record.end()) {
            throw ConversationError("the record has neither \"messages\" nor \"conversations\"");
        }
        if (!turns->is_array()) {
            throw ConversationError("\"conversations\" is a " + typeOf(*turns) +
                                    ", expected a list of turns");
        }
        conversation.messages = fromShareGpt(*turns);
    }
    if (conversation.messages.empty()) {
        throw ConversationError("the conversation has no messages");
    }
    for (std::size_t index = 0; index < conversation.messages.size(); ++index) {
        checkMessage(index, conversation.messages[index]);
    }
    if (const auto tools = record.find("tools"); tools != record.end() && !tools->is_null()) {
        if (!tools->is_array()) {
            throw ConversationError("\"tools\" is a " + typeOf(*tools) +
                                    ", expected a list of tool schemas");
        }
        conversation.tools = *tools;
    }
    if (const auto kwargs = record.find("chat_template_kwargs");
        kwargs != record.end() && !kwargs->is_null()) {
        if (!kwargs->is_object()) {
            throw ConversationError("\"chat_template_kwargs\" is a " + typeOf(*kwargs) +
                                    ", expected an object of template variables");
        }
        conversation.template_kwargs = *kwargs;
    }
    return conversation;
}

} // namespace headroom::chat
