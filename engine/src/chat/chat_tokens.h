#pragma once

// A rendered conversation as token ids, with the ids the model learns marked.

#include "chat/trained_spans.h"
#include "tokenizers/tokenizer.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace headroom::chat {

// What chat data needs beside the records: the template and which turns are learned.
struct ChatData {
    ChatTemplate chat_template;
    TrainOn train_on = TrainOn::Assistant;
};

struct ChatTokens {
    std::vector<std::int32_t> ids;
    std::vector<std::uint8_t> trained; // per id: 1 when the model learns to produce it
    // Token counts at which a trained span ends (after an assistant's end-of-turn): where an
    // over-long conversation can be cut without splitting a reply.
    std::vector<std::size_t> turn_ends;
};

// The text tokenized without added special tokens (the template writes them). A token is
// trained when its bytes meet a trained span, as transformers' assistant-token mask marks
// every token holding a character of an assistant's reply. A tokenizer that cannot give
// offsets tokenizes the text piece by piece, split at the span edges.
ChatTokens tokenizeTrainingText(const data::Tokenizer &tokenizer, const TrainingText &text);

} // namespace headroom::chat
