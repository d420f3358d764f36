// Autoregressive generation: next-token logits from a model, sampled as Hugging Face's
// generate does (temperature, then top-k, then top-p; greedy when temperature is 0), stopping
// at an end-of-sequence id or after max_new_tokens.
#pragma once

#include "models/causal_lm.h"
#include "models/gpt.h"

#include <torch/torch.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace headroom::models {

struct SamplingOptions {
    std::int64_t max_new_tokens = 64;
    double temperature = 0.0; // 0 = greedy
    std::int64_t top_k = 0;   // 0 = off
    double top_p = 1.0;       // 1 = off
    std::uint64_t seed = 0;
    std::vector<std::int64_t> eos_ids; // generation stops after emitting one (it is kept)
};

// Next-token logits for a growing sequence. A model with a KV cache feeds only the tokens it
// has not seen; one without recomputes its context window.
class NextTokenLogits {
public:
    virtual ~NextTokenLogits() = default;
    // sequence: every token so far (prompt and generated). Returns float32 [vocab].
    virtual torch::Tensor next(const std::vector<std::int64_t> &sequence) = 0;
    // Longest sequence the model can see.
    virtual std::int64_t context() const = 0;
};

// use_cache false recomputes the whole prefix each step (the benchmark's baseline).
std::unique_ptr<NextTokenLogits> causalLmLogits(CausalLmImpl &model, torch::Device device,
                                                bool use_cache = true);
// The GPT recipe's model (no cache): the last seq_len tokens each step.
std::unique_ptr<NextTokenLogits> gptLogits(GptImpl &model, torch::Device device);

// Picks the next token from float32 logits [vocab] (modifies nothing the caller keeps).
std::int64_t sampleToken(const torch::Tensor &logits, const SamplingOptions &options,
                         torch::Generator &generator);

// Generates after `prompt` (not empty). on_token(id) after each new token; stop (may be null)
// ends early when set. Returns the new tokens. The model must be in eval mode; runs under
// NoGradGuard. A prompt longer than the context is refused (std::invalid_argument); generation
// stops at the context's end.
std::vector<std::int64_t> generateTokens(NextTokenLogits &model,
                                         const std::vector<std::int64_t> &prompt,
                                         const SamplingOptions &options,
                                         const std::function<void(std::int64_t)> &on_token = {},
                                         const std::atomic<bool> *stop = nullptr);

} // namespace headroom::models
