#pragma once

#include "data/example_stream.h"
#include "tokenizers/tokenizer.h"

#include <cstdint>
#include <optional>
#include <string>

namespace headroom::train {

class Recipe;

struct SampleContinuation {
    std::string prompt;       // the start of the first validation example, decoded
    std::string continuation; // what the model writes after it, greedy
};

// A language model's greedy continuation of the first validation example's start (its prompt
// for prompt/completion data, the conversation up to the first reply for chat data, else its
// first tokens): a look at what training does beyond the
// loss. Nothing when the recipe cannot generate or there is no validation example. Leaves the
// stream rewound and the model in training mode; draws no random numbers.
std::optional<SampleContinuation> continueValidationSample(Recipe &recipe,
                                                           const data::Tokenizer &tokenizer,
                                                           data::ExampleStream &validation,
                                                           std::int64_t new_tokens);

} // namespace headroom::train
