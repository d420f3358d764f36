// Sampling several continuations of one prompt in lockstep, as online RL (GRPO) needs them: the
// prompt runs through the model once, its keys and values are repeated for every row, and the
// rows then advance one token at a time through one KV cache. Every row draws from its own keyed
// random stream, so its tokens do not depend on how many rows are sampled together (a group can
// be cut into smaller batches after an out-of-memory error without changing what it samples).
#pragma once

#include "models/causal_lm.h"
#include "models/generation.h"

#include <cstdint>
#include <vector>

namespace headroom::models {

// The continuations of `prompt` (not empty), one per key in `row_keys`: each at most
// options.max_new_tokens long, ending after its first end-of-sequence id (kept) or where the
// model's context ends. Sampled as sampleToken does (temperature, top-k, top-p; greedy at
// temperature 0). The model must be in eval mode; runs under NoGradGuard.
std::vector<std::vector<std::int64_t>>
sampleContinuations(CausalLmImpl &model, const std::vector<std::int64_t> &prompt,
                    const std::vector<std::uint64_t> &row_keys, const SamplingOptions &options,
                    const torch::Device &device);

// A 64-bit mix (SplitMix64's finalizer) for making row keys from a seed and counters.
std::uint64_t mixSamplingKey(std::uint64_t value);

// The uniform number in (0, 1) that row key `key` draws for its `index`-th token.
double keyedUniform(std::uint64_t key, std::int64_t index);

// Picks one token per row of float32 logits [R, V], row r with uniform draw uniforms[r]
// (inverse of the filtered distribution's cumulative sum).
std::vector<std::int64_t> sampleRows(const torch::Tensor &logits, const SamplingOptions &options,
                                     const std::vector<double> &uniforms);

} // namespace headroom::models
