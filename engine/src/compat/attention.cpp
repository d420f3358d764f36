#include "compat/attention.h"

#include "compat/torch_compat.h"

#include <cmath>
#include <limits>

namespace headroom::compat {

namespace {

// A [B, 1, T, L] allowed-mask as the additive mask of `rows` score rows per (batch, group):
// [B * groups, rows * T, L] with 0 where allowed and -inf elsewhere.
torch::Tensor additiveMask(const torch::Tensor &mask, const torch::TensorOptions &options,
                           std::int64_t groups, std::int64_t rows) {
    const std::int64_t batch = mask.size(0);
    const std::int64_t length = mask.size(2);
    const std::int64_t keys = mask.size(3);
    const torch::Tensor additive =
        torch::zeros(mask.sizes(), options)
            .masked_fill_(mask.logical_not(), -std::numeric_limits<double>::infinity());
    return additive.unsqueeze(1)
        .expand({batch, groups, rows, length, keys})
        .reshape({batch * groups, rows * length, keys});
}

// Explicit attention: one copy makes q, k and v contiguous batches of matrices, and baddbmm
// folds the 1/sqrt(D) scale and the additive causal mask into the score product.
torch::Tensor explicitAttention(const torch::Tensor &split, std::int64_t batch, std::int64_t length,
                                std::int64_t heads, std::int64_t head_dim, double dropout_p,
                                const WeightDropout &weight_dropout, const torch::Tensor &allowed) {
    const std::int64_t dim = heads * head_dim;
    const torch::Tensor packed = split.contiguous().view({3, batch * heads, length, head_dim});
    const torch::Tensor mask =
        allowed.defined() ? additiveMask(allowed, split.options(), heads, 1)
                          : torch::full({length, length}, -std::numeric_limits<double>::infinity(),
                                        split.options())
                                .triu_(1);
    const double scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
    const torch::Tensor scores =
        at::baddbmm(mask, packed[0], packed[1].transpose(1, 2), /*beta=*/1.0, scale);
    torch::Tensor weights = at::softmax(scores, -1);
    if (dropout_p > 0) {
        weights = weight_dropout ? weight_dropout(weights)
                                 : at::dropout(weights, dropout_p, /*train=*/true);
    }
    return at::bmm(weights, packed[2])
        .view({batch, heads, length, head_dim})
        .transpose(1, 2)
        .reshape({batch * length, dim});
}

#if HEADROOM_TORCH_AT_LEAST(2, 0)
// An undefined tensor inside an optional is not "no mask" to every kernel: pass none instead.
c10::optional<at::Tensor> optionalMask(const torch::Tensor &mask) {
    return mask.defined() ? c10::optional<at::Tensor>(mask) : c10::nullopt;
}
#endif

AttentionShape shapeOf(const torch::Tensor &queries, std::int64_t batch, std::int64_t heads,
                       std::int64_t length, std::int64_t head_dim, bool keyed_weight_dropout) {
    return AttentionShape{
        batch, heads, length, head_dim, keyed_weight_dropout, queries.device().is_cpu()};
}

} // namespace

torch::Tensor causalSelfAttention(const torch::Tensor &qkv, std::int64_t heads, double dropout_p,
                                  const WeightDropout &weight_dropout, AttentionPath path,
                                  const torch::Tensor &mask) {
    TORCH_CHECK(qkv.dim() == 3 && heads > 0 && qkv.size(2) % (3 * heads) == 0,
                "causalSelfAttention: qkv must be [B, T, 3*dim] with dim divisible by ", heads,
                " heads, got ", qkv.sizes());
    const std::int64_t batch = qkv.size(0);
    const std::int64_t length = qkv.size(1);
    const std::int64_t dim = qkv.size(2) / 3;
    const std::int64_t head_dim = dim / heads;
    // [B, T, 3, H, D] -> [3, B, H, T, D]: a view; q, k, v below are its three slices.
    const torch::Tensor split =
        qkv.view({batch, length, 3, heads, head_dim}).permute({2, 0, 3, 1, 4});
    const AttentionShape shape =
        shapeOf(qkv, batch, heads, length, head_dim, dropout_p > 0 && weight_dropout);
#if HEADROOM_TORCH_AT_LEAST(2, 0)
    if (chooseAttentionPath(path, shape) == AttentionPath::Sdpa) {
        // scaled_dot_product_attention takes the strided views as they are.
        const torch::Tensor attended = at::scaled_dot_product_attention(
            split[0], split[1], split[2], optionalMask(mask), dropout_p,
            /*is_causal=*/!mask.defined()); // [B, H, T, D]
        return attended.transpose(1, 2).reshape({batch * length, dim});
    }
#else
    // 1.13 has only the private _scaled_dot_product_attention, whose CPU form builds a boolean
    // mask, converts it and scales q in separate passes: the explicit form is faster, and
    // chooseAttentionPath never picks the fused one.
    (void)dim;
    (void)path;
    (void)shape;
#endif
    return explicitAttention(split, batch, length, heads, head_dim, dropout_p, weight_dropout,
                             mask);
}

torch::Tensor causalAttention(const torch::Tensor &q, const torch::Tensor &k,
                              const torch::Tensor &v, double scale, double dropout_p,
                              const WeightDropout &weight_dropout, AttentionPath path,
                              const torch::Tensor &mask) {
    TORCH_CHECK(q.dim() == 4 && k.dim() == 4 && v.sizes() == k.sizes() && q.size(0) == k.size(0) &&
                    k.size(1) > 0 && q.size(1) % k.size(1) == 0 && q.size(3) == k.size(3) &&
                    q.size(2) <= k.size(2),
                "causalAttention: q [B, H, T, D], k and v [B, H_kv, L >= T, D] with H a multiple "
                "of H_kv, got ",
                q.sizes(), " ", k.sizes(), " ", v.sizes());
    const std::int64_t batch = q.size(0);
    const std::int64_t heads = q.size(1);
    const std::int64_t kv_heads = k.size(1);
    const std::int64_t groups = heads / kv_heads;
    const std::int64_t length = q.size(2);
    const std::int64_t keys = k.size(2);
    const std::int64_t head_dim = q.size(3);
    TORCH_CHECK(!mask.defined() || (length == keys && mask.dim() == 4 && mask.size(0) == batch &&
                                    mask.size(2) == length && mask.size(3) == keys),
                "causalAttention: a document mask must be [B, 1, T, T], got ", mask.sizes());
#if HEADROOM_TORCH_AT_LEAST(2, 1)
    const AttentionShape shape =
        shapeOf(q, batch, heads, length, head_dim, dropout_p > 0 && weight_dropout);
    if (chooseAttentionPath(path, shape) == AttentionPath::Sdpa &&
        (length == keys || length == 1)) {
        // 2.1 takes the scale; is_causal aligns the mask top-left, right for T == L, and a
        // single query sees every key. It wants as many key/value heads as query heads.
        const auto repeated = [&](const torch::Tensor &t) {
            return groups == 1 ? t
                               : t.unsqueeze(2)
                                     .expand({batch, kv_heads, groups, keys, head_dim})
                                     .reshape({batch, heads, keys, head_dim});
        };
        return at::scaled_dot_product_attention(
            q, repeated(k), repeated(v), optionalMask(mask), dropout_p,
            /*is_causal=*/!mask.defined() && length == keys && length > 1, scale);
    }
#else
    (void)path;
#endif
    // The query heads that share a key/value head are rows of one product, [B*H_kv, r*T, D]
    // against [B*H_kv, L, D]: the keys and values are never repeated. Both layouts flatten
    // [B, H_kv, r, T, ...], which is [B, H, T, ...].
    const torch::Tensor queries = q.reshape({batch * kv_heads, groups * length, head_dim});
    const torch::Tensor key_rows = k.reshape({batch * kv_heads, keys, head_dim});
    torch::Tensor scores;
    if (length == 1) {
        scores = at::bmm(queries, key_rows.transpose(1, 2)).mul_(scale);
    } else if (mask.defined()) {
        scores = at::baddbmm(additiveMask(mask, q.options(), kv_heads, groups), queries,
                             key_rows.transpose(1, 2), /*beta=*/1.0, scale);
    } else {
        torch::Tensor causal =
            torch::full({length, keys}, -std::numeric_limits<double>::infinity(), q.options())
                .triu_(keys - length + 1);
        if (groups > 1) {
            causal = causal.repeat({groups, 1});
        }
        scores = at::baddbmm(causal, queries, key_rows.transpose(1, 2), /*beta=*/1.0, scale);
    }
    torch::Tensor weights = at::softmax(scores, -1);
    if (dropout_p > 0) {
        weights = weights.view({batch * heads, length, keys});
        weights = weight_dropout ? weight_dropout(weights)
                                 : at::dropout(weights, dropout_p, /*train=*/true);
        weights = weights.reshape({batch * kv_heads, groups * length, keys});
    }
    return at::bmm(weights, v.reshape({batch * kv_heads, keys, head_dim}))
        .view({batch, heads, length, head_dim});
}

} // namespace headroom::compat
