// Which form of causal attention a shape runs: LibTorch 2.x's fused
// scaled_dot_product_attention or the explicit baddbmm + softmax + bmm. Torch-free, so the
// memory estimator asks the same rule the model uses.
#pragma once

#include <cstdint>
#include <string>

namespace headroom::compat {

enum class AttentionPath {
    Auto,     // the rule below
    Sdpa,     // scaled_dot_product_attention (LibTorch 2.0+)
    Explicit, // scores and weights as [B*H, T, T] tensors
};

// "auto", "sdpa", "explicit" (model.attention); anything else throws std::invalid_argument
// naming the value and the accepted ones.
AttentionPath parseAttentionPath(const std::string &text);
const char *attentionPathName(AttentionPath path);

// True when this LibTorch has the public scaled_dot_product_attention (2.0+; with its scale
// argument, which attention over separate heads needs, 2.1+).
bool sdpaAvailable(bool with_scale = false);

// Empty when a run may ask for `requested`; otherwise why not, naming model.attention and
// what to do instead. weight_dropout: the model drops attention weights in training (keyed
// masks, which the fused kernel cannot take); dropout_key names the setting that causes it.
std::string attentionPathRefusal(AttentionPath requested, bool with_scale, bool weight_dropout,
                                 const std::string &dropout_key);

// Filled in this order at every call site (an aggregate: {batch, heads, length, head_dim,
// keyed_weight_dropout, cpu, layers, memory_budget}).
struct AttentionShape {
    std::int64_t batch = 1;
    std::int64_t heads = 1;
    std::int64_t length = 1; // queries = keys (causal self-attention)
    std::int64_t head_dim = 1;
    bool keyed_weight_dropout = false; // dropout on the weights with keyed masks (training)
    bool cpu = true;
    std::int64_t layers = 1;         // attention layers whose weights are saved at once
    std::uint64_t memory_budget = 0; // memory.budget in bytes; 0 = none
};

// The path causalSelfAttention and causalAttention take: Sdpa or Explicit, never Auto.
// - 1.13 has no usable fused kernel, and keyed weight dropout (exact replays) needs the
//   weights as a tensor: Explicit, whatever was asked.
// - Off the CPU (flash / memory-efficient kernels) Auto is Sdpa.
// - On the CPU the explicit form was as fast or faster at every measured shape (LibTorch 2.6,
//   tests/benchmarks/attention_memory.sh --sweep, docs/BENCHMARKS.md "Attention paths"), but
//   it keeps 4*B*H*T^2 bytes of weights per layer where the fused kernel keeps 4*B*H*T. Auto
//   is Explicit while those weights are cheap: T <= kExplicitMaxLengthPerHeadDim * D (then
//   they are at most about the rest of the block's saved activations, 64*B*T*H*D bytes) and,
//   under a memory budget, every layer's weights together take at most a quarter of it.
//   Otherwise Sdpa.
AttentionPath chooseAttentionPath(AttentionPath requested, const AttentionShape &shape);

constexpr std::int64_t kExplicitMaxLengthPerHeadDim = 16;

} // namespace headroom::compat
