#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace headroom::models {

struct TabularMlpOptions {
    TabularMlpOptions(std::int64_t numeric_features, std::int64_t outputs)
        : numeric_features_(numeric_features), outputs_(outputs) {}
    TORCH_ARG(std::int64_t, numeric_features);
    // Category count per categorical column, including the "unknown" id 0.
    TORCH_ARG(std::vector<std::int64_t>, cardinalities) = {};
    // 0 = automatic per column: min(16, (cardinality + 1) / 2), at least 2.
    TORCH_ARG(std::int64_t, embedding_dim) = 0;
    TORCH_ARG(std::vector<std::int64_t>, hidden) = std::vector<std::int64_t>{128, 64};
    TORCH_ARG(double, dropout) = 0.1;
    // Number of classes, or 1 for regression.
    TORCH_ARG(std::int64_t, outputs);
};

// Throws std::invalid_argument naming the bad option.
void validateTabularMlpOptions(const TabularMlpOptions &options);

// Embedding width of a categorical column with this many categories (options.embedding_dim
// when it is set, else the automatic rule above).
std::int64_t tabularEmbeddingDim(const TabularMlpOptions &options, std::int64_t cardinality);

// MLP over [standardized numeric features | embeddings of categorical columns]:
// Linear -> GELU -> Dropout per hidden layer, then a Linear head.
class TabularMlpImpl : public torch::nn::Module {
public:
    explicit TabularMlpImpl(const TabularMlpOptions &options);
    // numeric [B, F] float, categorical [B, C] int64 -> [B, outputs]. Either input may be an
    // undefined tensor when the model has no columns of that kind.
    // Throws std::invalid_argument when a shape does not match the options or a category id is
    // outside 0..cardinality-1 (naming the column).
    torch::Tensor forward(const torch::Tensor &numeric, const torch::Tensor &categorical);
    const TabularMlpOptions &options() const;
    // Width of the MLP input: numeric features plus every column's embedding width.
    std::int64_t inputWidth() const { return input_width_; }

private:
    torch::Tensor features(const torch::Tensor &numeric, const torch::Tensor &categorical);

    TabularMlpOptions options_;
    std::int64_t input_width_ = 0;
    std::vector<torch::nn::Embedding> embeddings_; // one per categorical column
    std::vector<torch::nn::Linear> hidden_;
    torch::nn::Linear head_{nullptr};
    torch::Tensor cardinality_limits_; // [C] int64: ids must be below these
};
TORCH_MODULE(TabularMlp);

} // namespace headroom::models
