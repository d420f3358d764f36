#pragma once

// Conversation (chat) data as training sees it: each record rendered with a chat template,
// tokenized, and the tokens the model learns marked. For `headroom-cli tokenize --chat` and the
// wizard's preview. No Torch, no Qt.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace headroom {

struct ChatPreviewOptions {
    // A Hugging Face tokenizer or model folder (tokenizer.json; its tokenizer_config.json or
    // chat_template.jinja gives the template and the special token strings).
    std::string tokenizer;
    // Empty: the folder's template; "chatml": the built-in ChatML template; else a .jinja file
    // or a JSON file holding "chat_template" (data.chat_template's values).
    std::string chat_template;
    std::string train_on = "assistant"; // assistant | last_assistant | all (data.train_on)
    // Render with the assistant's header after the last message, as for generation.
    bool add_generation_prompt = false;
};

struct ChatRecordTokens {
    std::int64_t line = 0; // where the record starts in the file, 1-based
    std::string text;      // the rendered conversation
    std::vector<std::int32_t> ids;
    std::vector<std::string> pieces; // the vocabulary's spelling of each id
    std::vector<std::uint8_t> train; // per id: 1 when the model learns to produce it
    // The learned bytes of `text`: [begin, end) ranges, sorted.
    std::vector<std::pair<std::size_t, std::size_t>> trained_spans;
    // How each assistant message's tokens were found: "generation", "prefix" or "fallback".
    std::vector<std::string> methods;
    std::string template_origin;
};

// Calls `each` for every record of a JSONL/JSON file of conversations, in file order; stops
// early when `each` returns false. Throws InputError naming the problem: a tokenizer that
// cannot be loaded, no chat template, a record that is not a conversation or that the template
// refuses (FILE:LINE: problem).
void previewChatFile(const ChatPreviewOptions &options, const std::string &data_path,
                     const std::function<bool(const ChatRecordTokens &)> &each);

} // namespace headroom
