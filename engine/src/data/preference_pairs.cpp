#include "data/preference_pairs.h"

#include "chat/chat_tokens.h"
#include "data/data_error.h"
#include "data/record_reader.h"
#include "tokenizers/tokenizer.h"

#include <algorithm>
#include <vector>

namespace headroom::data {

namespace {

// prompt ++ completion ++ end-of-text, cut to `width` tokens; whether the completion was cut.
bool fillSequence(const std::vector<std::int32_t> &prompt,
                  const std::vector<std::int32_t> &completion, std::int32_t end_of_text,
                  std::size_t width, Example &out) {
    out.tokens = prompt;
    out.tokens.insert(out.tokens.end(), completion.begin(), completion.end());
    out.tokens.push_back(end_of_text);
    const bool cut = out.tokens.size() > width;
    out.tokens.resize(std::min(out.tokens.size(), width));
    out.prompt_tokens = static_cast<std::int32_t>(prompt.size());
    out.real_tokens = static_cast<std::int32_t>(out.tokens.size());
    return cut;
}

// One rendered conversation cut at `width` tokens; whether it was cut. Nothing before the first
// token predicts it: a scored first token does not count.
bool fillConversation(const data::Tokenizer &tokenizer, const chat::ChatTemplate &chat_template,
                      const chat::Conversation &conversation, std::size_t width, Example &out) {
    chat::ChatTokens tokens = chat::tokenizeTrainingText(
        tokenizer,
        chat::renderForTraining(chat_template, conversation, chat::TrainOn::LastAssistant));
    const bool cut = tokens.ids.size() > width;
    tokens.ids.resize(std::min(tokens.ids.size(), width));
    tokens.trained.resize(tokens.ids.size());
    out.tokens = std::move(tokens.ids);
    out.trained = std::move(tokens.trained);
    out.real_tokens = static_cast<std::int32_t>(out.tokens.size());
    out.prompt_tokens = 0;
    return cut;
}

bool scoresAnything(const Example &sequence) {
    return std::find(sequence.trained.begin() + (sequence.trained.empty() ? 0 : 1),
                     sequence.trained.end(), 1) != sequence.trained.end();
}

} // namespace

bool conversationalPreferencePair(const Tokenizer &tokenizer,
                                  const chat::ChatTemplate &chat_template,
                                  const chat::Conversation &chosen,
                                  const chat::Conversation &rejected, std::int64_t seq_len,
                                  Example &out, PairCuts &cuts) {
    const auto width = static_cast<std::size_t>(seq_len + 1);
    Example rejected_sequence;
    const bool chosen_cut = fillConversation(tokenizer, chat_template, chosen, width, out);
    const bool rejected_cut =
        fillConversation(tokenizer, chat_template, rejected, width, rejected_sequence);
    if (!scoresAnything(out) || !scoresAnything(rejected_sequence)) {
        ++cuts.without_room;
        return false;
    }
    if (chosen_cut || rejected_cut) {
        ++cuts.completions_cut;
    }
    out.rejected.assign(1, std::move(rejected_sequence));
    return true;
}

bool preferencePair(const Tokenizer &tokenizer, const std::string &prompt,
                    const std::string &chosen, const std::string &rejected, std::int64_t seq_len,
                    std::int64_t max_prompt_len, Example &out, PairCuts &cuts) {
    const auto width = static_cast<std::size_t>(seq_len + 1);
    std::vector<std::int32_t> prompt_ids = tokenizer.encodeStart(prompt);
    if (max_prompt_len > 0 && prompt_ids.size() > static_cast<std::size_t>(max_prompt_len)) {
        prompt_ids.erase(prompt_ids.begin(), prompt_ids.end() - max_prompt_len);
        ++cuts.prompts_cut;
    }
    // The last prompt token predicts the first completion token: it must fit with it.
    if (prompt_ids.size() + 1 > width) {
        ++cuts.without_room;
        return false;
    }
    Example rejected_sequence;
    const std::int32_t end = tokenizer.endOfTextId();
    const bool chosen_cut = fillSequence(prompt_ids, tokenizer.encode(chosen), end, width, out);
    const bool rejected_cut =
        fillSequence(prompt_ids, tokenizer.encode(rejected), end, width, rejected_sequence);
    if (chosen_cut || rejected_cut) {
        ++cuts.completions_cut;
    }
    out.rejected.assign(1, std::move(rejected_sequence));
    return true;
}

bool preferenceExample(const Tokenizer &tokenizer, const DataSpec &spec, const Record &record,
                       Example &out, PairCuts &cuts) {
    if (!record.chosen_conversation) {
        return preferencePair(tokenizer, record.prompt, record.text, record.rejected, spec.seq_len,
                              spec.max_prompt_len, out, cuts);
    }
    if (!spec.chat_data) {
        throw DataError(spec.path, record.line,
                        "a conversational pair, but there is no chat template to render it: the "
                        "base model folder has none; set data.chat_template=chatml or a "
                        "template file");
    }
    try {
        return conversationalPreferencePair(tokenizer, spec.chat_data->chat_template,
                                            *record.chosen_conversation,
                                            *record.rejected_conversation, spec.seq_len, out, cuts);
    } catch (const chat::ConversationError &error) {
        throw DataError(spec.path, record.line, error.what());
    }
}

} // namespace headroom::data
