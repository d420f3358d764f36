// Prompts of online RL (train.objective grpo) as examples: the prompt's tokens only, its
// completions are sampled in training.
#pragma once

#include "data/data_spec.h"
#include "data/example.h"
#include "data/preference_pairs.h"

#include <cstdint>

namespace headroom::data {

class Tokenizer;
struct Record;

// A prompt record (Record::prompt_only) as one example: its text with the begin-of-text the
// tokenizer adds, or its messages rendered through spec.chat_data's template with the
// assistant's header after them (tokenized without added specials: the template writes them).
// Only the last max_prompt_len tokens are kept (TRL keeps the end), and at most seq_len, so a
// completion has room (counted in cuts.prompts_cut). `out.record` takes the record's JSON.
// Returns the prompt's tokens before the cut. Throws DataError (FILE:LINE) for a conversation
// without a template or one the template refuses.
std::int64_t promptExample(const Tokenizer &tokenizer, const DataSpec &spec, Record &record,
                           Example &out, PairCuts &cuts);

} // namespace headroom::data
