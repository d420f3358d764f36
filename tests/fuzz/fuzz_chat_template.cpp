// The chat-template engine: templates come from model folders anyone can publish, and the
// variables from conversation files. The input is a template, a NUL byte, then the variables as
// JSON (a fixed conversation when that part is missing or not JSON). Rendering runs under small
// limits; anything but a TemplateError is a finding, and so is a render that differs when done
// twice.
#include "chat/jinja/template.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace {

const nlohmann::ordered_json &fallbackVariables() {
    static const nlohmann::ordered_json variables = nlohmann::ordered_json::parse(R"({
        "messages": [{"role": "system", "content": "Be brief."},
                     {"role": "user", "content": "Hi, wie geht's? 😀"},
                     {"role": "assistant", "content": "<think>ok</think>Fine.", "reasoning_content": "ok",
                      "tool_calls": [{"id": "call_1", "type": "function",
                                      "function": {"name": "f", "arguments": {"x": 1.5, "y": [true, null]}}}]},
                     {"role": "tool", "tool_call_id": "call_1", "content": "{\"r\": 1}"}],
        "tools": [{"type": "function", "function": {"name": "f", "description": "d",
                   "parameters": {"type": "object", "properties": {"x": {"type": "number"}}}}}],
        "add_generation_prompt": true, "bos_token": "<s>", "eos_token": "</s>"})");
    return variables;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char *>(data), size);
    const std::size_t split = input.find('\0');
    const std::string_view source = input.substr(0, split);
    nlohmann::ordered_json variables = fallbackVariables();
    if (split != std::string_view::npos) {
        auto parsed = nlohmann::ordered_json::parse(input.substr(split + 1), nullptr, false);
        if (!parsed.is_discarded()) {
            variables = std::move(parsed);
        }
    }

    headroom::chat::jinja::RenderOptions options;
    options.limits.max_steps = 200'000;
    options.limits.max_call_depth = 16;
    options.limits.max_output_bytes = 1 << 20;
    options.strftime_now = [](const std::string &format) {
        return "[" + format + "]";
    };
    try {
        const headroom::chat::jinja::Template chat(source);
        std::string first;
        try {
            first = chat.render(variables, options).text;
        } catch (const headroom::chat::jinja::TemplateError &) {
            return 0;
        }
        if (chat.render(variables, options).text != first) {
            std::abort(); // rendering is not a pure function of template and variables
        }
    } catch (const headroom::chat::jinja::TemplateError &) {
    }
    return 0;
}
