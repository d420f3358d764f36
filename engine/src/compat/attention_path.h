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

// True when this LibTorch has the public scaled_dot_product_attention (2.0+).
bool sdpaAvailable();

struct AttentionShape {
    std::int64_t batch = 1;
    std::int64_t heads = 1;
    std::int64_t length = 1; // queries = keys (causal self-attention)
    std::int64_t head_dim = 1;
    bool keyed_weight_dropout = false; // dropout on the weights with keyed masks (training)
    bool cpu = true;
};

// The path causalSelfAttention takes: Sdpa or Explicit, never Auto.
// - 1.13 has no usable fused kernel, and keyed weight dropout (exact replays) needs the
//   weights as a tensor: Explicit, whatever was asked.
// - Off the CPU (flash / memory-efficient kernels) Auto is Sdpa.
// - On the CPU Auto is Explicit while a sequence is short enough that the explicit form is
//   faster and its [B*H, T, T] buffers are small (kExplicitMaxLength, kExplicitMaxScoreBytes;
//   measured by tests/benchmarks/attention_memory.sh, docs/BENCHMARKS.md), Sdpa beyond.
AttentionPath chooseAttentionPath(AttentionPath requested, const AttentionShape &shape);

constexpr std::int64_t kExplicitMaxLength = 512;
constexpr std::int64_t kExplicitMaxScoreBytes = std::int64_t{64} << 20;

} // namespace headroom::compat
