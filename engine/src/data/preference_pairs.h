// Preference pairs as token sequences, laid out as TRL's DPOTrainer builds them: the prompt's
// ids (with the begin-of-text the tokenizer adds) followed by the completion's ids and
// end-of-text, once with the chosen and once with the rejected completion; only the
// completion's tokens (its end-of-text included) are scored.
#pragma once

#include "data/data_spec.h"
#include "data/example.h"

#include <cstdint>
#include <string>

namespace headroom::chat {
class ChatTemplate;
struct Conversation;
} // namespace headroom::chat

namespace headroom::data {

class Tokenizer;
struct Record;

// What building the pairs of a file cut.
struct PairCuts {
    std::int64_t prompts_cut = 0;     // prompts longer than max_prompt_len: their start dropped
    std::int64_t completions_cut = 0; // pairs longer than seq_len + 1: a completion's end dropped
    std::int64_t without_room = 0;    // prompts that leave no completion token within the window
};

// The pair as one example (`out`: the chosen sequence, out.rejected: the rejected one), each
// cut at seq_len + 1 tokens (not padded; real_tokens is its length, prompt_tokens its prompt).
// max_prompt_len > 0 keeps only the prompt's last max_prompt_len tokens, as TRL does. False
// (and counted) when the prompt leaves no completion token to score.
bool preferencePair(const Tokenizer &tokenizer, const std::string &prompt,
                    const std::string &chosen, const std::string &rejected, std::int64_t seq_len,
                    std::int64_t max_prompt_len, Example &out, PairCuts &cuts);

// A conversational pair: each conversation (the prompt's messages and one reply) rendered
// through the chat template, the last reply with its end-of-turn scored (Example::trained), each
// cut at seq_len + 1 tokens. False (and counted) when no scored token of either is left. Throws
// chat::ConversationError when the template refuses the conversation.
bool conversationalPreferencePair(const Tokenizer &tokenizer,
                                  const chat::ChatTemplate &chat_template,
                                  const chat::Conversation &chosen,
                                  const chat::Conversation &rejected, std::int64_t seq_len,
                                  Example &out, PairCuts &cuts);

// The example of a preference record (Record::pair): its texts, or its conversations rendered
// with spec.chat_data's template. False (and counted) as the two above; throws DataError
// (FILE:LINE) for a conversational pair without a template or one the template refuses.
bool preferenceExample(const Tokenizer &tokenizer, const DataSpec &spec, const Record &record,
                       Example &out, PairCuts &cuts);

} // namespace headroom::data
