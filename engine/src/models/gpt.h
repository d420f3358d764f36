#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace headroom::models {

struct GptOptions {
    GptOptions(std::int64_t vocab_size, std::int64_t seq_len) : vocab_size_(vocab_size), seq_len_(seq_len) {}
    TORCH_ARG(std::int64_t, vocab_size);
    TORCH_ARG(std::int64_t, seq_len);
    TORCH_ARG(std::int64_t, layers) = 4;
    TORCH_ARG(std::int64_t, heads) = 4;
    TORCH_ARG(std::int64_t, dim) = 128;
    TORCH_ARG(double, dropout) = 0.1;
};

// Sizes layers/heads/dim so the parameter count comes close to target_params (keeping
// dim divisible by heads and by 64 where possible, about dim/64 heads and layers ~ dim/64).
GptOptions gptOptionsForParameterCount(std::int64_t target_params, std::int64_t vocab_size,
                                       std::int64_t seq_len);

// Parameters of a GPT with these options (weight tying counted once).
std::int64_t gptParameterCount(const GptOptions &options);

// One pre-LayerNorm transformer block: x + attn(ln1(x)), then x + mlp(ln2(x)).
class GptBlockImpl : public torch::nn::Module {
public:
    explicit GptBlockImpl(const GptOptions &options);
    torch::Tensor forward(const torch::Tensor &x);
    // ... layers as members (ln1, qkv, proj, ln2, fc, fc_out, dropouts)
};
TORCH_MODULE(GptBlock);

// Decoder-only transformer language model: token + learned position embeddings, dropout,
// blocks, final LayerNorm, output projection tied to the token embedding.
class GptImpl : public torch::nn::Module {
public:
    explicit GptImpl(const GptOptions &options);
    // tokens [B, T] int64 (T <= seq_len) -> logits [B, T, vocab_size]
    torch::Tensor forward(const torch::Tensor &tokens);
    // Mean cross-entropy of next-token prediction over all B*T positions.
    torch::Tensor loss(const torch::Tensor &inputs, const torch::Tensor &targets);
    const GptOptions &options() const;
    // The blocks, so activation checkpointing can wrap them later.
    torch::nn::ModuleList blocks();
};
TORCH_MODULE(Gpt);

} // namespace headroom::models
