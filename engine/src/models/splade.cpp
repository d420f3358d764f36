#include "models/splade.h"

#include <algorithm>
#include <limits>

namespace headroom::models {

torch::Tensor spladePool(const torch::Tensor &logits, const torch::Tensor &attention_mask) {
    TORCH_CHECK(logits.dim() == 3, "spladePool: logits must be [B, T, V]");
    TORCH_CHECK(attention_mask.dim() == 2 && attention_mask.size(0) == logits.size(0) &&
                    attention_mask.size(1) == logits.size(1),
                "spladePool: the attention mask must be [B, T] like the logits");
    // Padding can never win the max: below every value log(1 + relu(x)) maps to 0.
    const torch::Tensor padding = attention_mask.eq(0).unsqueeze(-1);
    const torch::Tensor masked =
        logits.masked_fill(padding, -std::numeric_limits<float>::infinity());
    const torch::Tensor highest = std::get<0>(masked.max(1));
    return torch::log1p(torch::relu(highest));
}

torch::Tensor flopsRegularizer(const torch::Tensor &vectors) {
    return vectors.abs().mean(0).pow(2).sum();
}

double flopsWeight(double lambda, std::int64_t step, std::int64_t warmup_steps) {
    if (warmup_steps <= 0) {
        return lambda;
    }
    const double progress =
        std::min(1.0, static_cast<double>(step) / static_cast<double>(warmup_steps));
    return lambda * progress * progress;
}

SpladeLossTerms spladeLoss(const torch::Tensor &queries, const torch::Tensor &passages,
                           const torch::Tensor &positive, double lambda_q, double lambda_d) {
    TORCH_CHECK(queries.dim() == 2 && passages.dim() == 2 && queries.size(1) == passages.size(1),
                "spladeLoss: queries and passages must be [N, V] with the same V");
    TORCH_CHECK(positive.dim() == 1 && positive.size(0) == queries.size(0),
                "spladeLoss: one positive index per query");
    SpladeLossTerms terms;
    const torch::Tensor scores = torch::matmul(queries, passages.t());
    terms.contrastive =
        torch::nn::functional::cross_entropy(scores.to(torch::kFloat32), positive.to(torch::kLong));
    terms.flops_q = flopsRegularizer(queries.to(torch::kFloat32));
    terms.flops_d = flopsRegularizer(passages.to(torch::kFloat32));
    terms.objective = terms.contrastive + lambda_q * terms.flops_q + lambda_d * terms.flops_d;
    return terms;
}

double meanNonZeros(const torch::Tensor &vectors) {
    if (vectors.size(0) == 0) {
        return 0;
    }
    return vectors.ne(0).sum().item<double>() / static_cast<double>(vectors.size(0));
}

} // namespace headroom::models
