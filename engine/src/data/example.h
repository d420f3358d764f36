#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::data {

// One training or validation sample, torch-free; recipes collate them into tensors.
struct Example {
    // Stable identity: the example's ordinal in the (unshuffled) data set, with the epoch in
    // the top 16 bits. Hashed into the per-step samples_digest.
    std::uint64_t id = 0;

    // gpt: seq_len + 1 token ids (inputs are [0, seq_len), targets are [1, seq_len]).
    std::vector<std::int32_t> tokens;
    // gpt, a prompt/completion record: tokens [0, prompt_tokens) are the prompt and tokens from
    // real_tokens on are padding; neither is a target (the loss learns the completion only).
    // Both 0 for windows of plain text, where every token is a target.
    std::int32_t prompt_tokens = 0;
    std::int32_t real_tokens = 0;
    // gpt, a conversation: per token of `tokens`, 1 where the model learns to produce it (an
    // assistant's reply and end-of-turn); the target predicting token t + 1 is kept when
    // trained[t + 1] is 1. Empty for other examples.
    std::vector<std::uint8_t> trained;
    // gpt, a preference pair (train.objective dpo, ipo, simpo, orpo): this example is the prompt
    // and the chosen completion (as a prompt/completion record), `rejected` holds the same prompt
    // with the rejected completion in the same form. Empty for other examples.
    std::vector<Example> rejected;
    // gpt, a prompt of online RL (train.objective grpo): `tokens` hold the prompt
    // (prompt_tokens = real_tokens = its length) and `record` the data record's whole JSON
    // object, whose fields the rewards read (e.g. "answer"). Empty for other examples.
    std::string record;

    // retrieval (splade): `tokens` holds the query's tokens, then each passage's, back to back;
    // segment_lengths their lengths, the query's first. The first positive_passages passages
    // are relevant to the query; the rest are its hard negatives.
    std::vector<std::int32_t> segment_lengths;
    std::int32_t positive_passages = 0;

    // tabular: standardized numeric features, category indices per categorical column
    // (0 = unknown / missing), and the target (class index, or standardized value for
    // regression).
    std::vector<float> numeric;
    std::vector<std::int64_t> categorical;
    double target = 0;
};

inline std::uint64_t makeExampleId(std::uint64_t epoch, std::uint64_t ordinal) {
    return (epoch << 48) | (ordinal & ((std::uint64_t{1} << 48) - 1));
}

// The ordinal of an example id, whatever its epoch.
inline std::uint64_t exampleOrdinal(std::uint64_t id) {
    return id & ((std::uint64_t{1} << 48) - 1);
}

} // namespace headroom::data
