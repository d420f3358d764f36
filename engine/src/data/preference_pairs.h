// Preference pairs as token sequences, laid out as TRL's DPOTrainer builds them: the prompt's
// ids (with the begin-of-text the tokenizer adds) followed by the completion's ids and
// end-of-text, once with the chosen and once with the rejected completion; only the
// completion's tokens (its end-of-text included) are scored.
#pragma once

#include "data/example.h"

#include <cstdint>
#include <string>

namespace headroom::data {

class Tokenizer;

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

} // namespace headroom::data
