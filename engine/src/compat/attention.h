// Causal self-attention, the one op whose best form differs between LibTorch 1.13 and 2.x.
#pragma once

#include <torch/torch.h>

namespace headroom::compat {

// softmax(q k^T / sqrt(D) + causal mask) v, with dropout on the attention weights.
// q, k, v: [B, H, T, D] (contiguous is fastest) -> [B, H, T, D]. Position t attends to
// positions 0..t only. Pass dropout_p = 0 outside training.
torch::Tensor causalSelfAttention(const torch::Tensor &q, const torch::Tensor &k,
                                  const torch::Tensor &v, double dropout_p);

// The additive mask the explicit form uses: 0 on and below the diagonal, -inf above.
torch::Tensor causalAdditiveMask(std::int64_t length, const torch::TensorOptions &options);

} // namespace headroom::compat
