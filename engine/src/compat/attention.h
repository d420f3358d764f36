// Causal self-attention, the one op whose best form differs between LibTorch 1.13 and 2.x.
#pragma once

#include "compat/attention_path.h"

#include <torch/torch.h>

#include <cstdint>
#include <functional>

namespace headroom::compat {

// softmax(q k^T / sqrt(D) + causal mask) v for every head, with dropout on the attention
// weights (pass 0 outside training). Position t attends to positions 0..t only.
// qkv: [B, T, 3*dim], the output of a fused projection: queries, keys, values, each with the
// heads side by side (head h is columns h*D .. (h+1)*D-1, D = dim/heads).
// Returns [B*T, dim] with the heads side by side again, ready for the output projection.
// weight_dropout, when given, replaces the built-in dropout of the weights ([B*H, T, T]; keyed
// dropout for exact replays): the fused 2.x kernel cannot take it, so the explicit form runs.
// path: which form runs, resolved by chooseAttentionPath (compat/attention_path.h).
// mask, when defined: [B, 1, T, T] bool, true where query t may attend key s, replacing the
// causal mask (packed rows of several documents: models/document_layout.h).
using WeightDropout = std::function<torch::Tensor(const torch::Tensor &)>;
torch::Tensor causalSelfAttention(const torch::Tensor &qkv, std::int64_t heads, double dropout_p,
                                  const WeightDropout &weight_dropout = {},
                                  AttentionPath path = AttentionPath::Auto,
                                  const torch::Tensor &mask = {});

// Causal attention over separate heads, for models with grouped-query attention and a KV
// cache: q [B, H, T, D], k and v [B, H_kv, L, D] with H a multiple of H_kv (key/value head j
// serves query heads j*H/H_kv .. (j+1)*H/H_kv - 1; L >= T; the queries are the last T of the
// L positions, so query t sees keys 0 .. L-T+t). scale multiplies q k^T. Dropout as above on
// the [B*H, T, L] weights. Returns [B, H, T, D].
// path as above; the fused kernel also needs LibTorch 2.1 and T == L (training, prefill) or
// T == 1 (one generated token). mask as above, for T == L only.
torch::Tensor causalAttention(const torch::Tensor &q, const torch::Tensor &k,
                              const torch::Tensor &v, double scale, double dropout_p,
                              const WeightDropout &weight_dropout = {},
                              AttentionPath path = AttentionPath::Auto,
                              const torch::Tensor &mask = {});

} // namespace headroom::compat
