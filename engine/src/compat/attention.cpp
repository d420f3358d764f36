#include "compat/attention.h"

#include "compat/torch_compat.h"

#include <cmath>
#include <limits>

namespace headroom::compat {

torch::Tensor causalAdditiveMask(std::int64_t length, const torch::TensorOptions &options) {
    return torch::full({length, length}, -std::numeric_limits<double>::infinity(), options)
        .triu_(1);
}

torch::Tensor causalSelfAttention(const torch::Tensor &q, const torch::Tensor &k,
                                  const torch::Tensor &v, double dropout_p) {
    TORCH_CHECK(q.dim() == 4 && k.sizes() == q.sizes() && v.sizes() == q.sizes(),
                "causalSelfAttention: q, k and v must all be [B, H, T, D], got ", q.sizes(), ", ",
                k.sizes(), ", ", v.sizes());
#if HEADROOM_TORCH_AT_LEAST(2, 0)
    return at::scaled_dot_product_attention(q, k, v, {}, dropout_p, /*is_causal=*/true);
#else
    // 1.13 has only the private _scaled_dot_product_attention, whose CPU form rebuilds a
    // boolean mask, converts it and scales q in separate passes. baddbmm does the scaling and
    // the mask in the score matmul itself.
    const auto batch = q.size(0);
    const auto heads = q.size(1);
    const auto length = q.size(2);
    const auto head_dim = q.size(3);
    const auto flat = [&](const torch::Tensor &t) {
        return t.reshape({batch * heads, length, head_dim});
    };
    const double scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
    const torch::Tensor scores = at::baddbmm(causalAdditiveMask(length, q.options()), flat(q),
                                             flat(k).transpose(1, 2), /*beta=*/1.0, scale);
    torch::Tensor weights = at::softmax(scores, -1);
    if (dropout_p > 0) {
        weights = at::dropout(weights, dropout_p, /*train=*/true);
    }
    return at::bmm(weights, flat(v)).view({batch, heads, length, head_dim});
#endif
}

} // namespace headroom::compat
