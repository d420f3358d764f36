// SPLADE (sparse lexical and expansion model): a masked language model's logits turned into one
// vocabulary-sized, mostly-zero weight vector per text, and its training loss (Formal et al.,
// "SPLADE v2", 2021).
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace headroom::models {

// w[b, v] = max over the real tokens t of log(1 + relu(logits[b, t, v])).
// logits [B, T, V]; attention_mask [B, T] (1 = real token, 0 = padding). Returns [B, V] in
// logits' dtype. The max is taken before the (monotonic) log(1 + relu): the same value without
// a second [B, T, V] tensor, and the gradient reaches the same token.
torch::Tensor spladePool(const torch::Tensor &logits, const torch::Tensor &attention_mask);

// The FLOPS regularizer of a batch of vectors [N, V]: sum over v of (mean over n of |w[n, v]|)^2,
// a smooth stand-in for the expected cost of scoring through an inverted index.
torch::Tensor flopsRegularizer(const torch::Tensor &vectors);

// A FLOPS weight after the quadratic warm-up: lambda * min(1, (step / warmup_steps)^2); lambda
// itself when warmup_steps is 0.
double flopsWeight(double lambda, std::int64_t step, std::int64_t warmup_steps);

struct SpladeLossTerms {
    torch::Tensor contrastive; // mean cross-entropy of each query over every passage
    torch::Tensor flops_q;     // FLOPS of the queries (unweighted)
    torch::Tensor flops_d;     // FLOPS of the passages (unweighted)
    torch::Tensor objective;   // contrastive + lambda_q * flops_q + lambda_d * flops_d
};

// queries [Q, V] and passages [P, V] (pooled); positive [Q] (int64) is the index of each
// query's relevant passage. Each query is scored against every passage (q . p): the other
// queries' passages are its in-batch negatives, and all hard negatives are everyone's.
SpladeLossTerms spladeLoss(const torch::Tensor &queries, const torch::Tensor &passages,
                           const torch::Tensor &positive, double lambda_q, double lambda_d);

// Non-zero weights per vector, averaged over the rows of [N, V].
double meanNonZeros(const torch::Tensor &vectors);

} // namespace headroom::models
