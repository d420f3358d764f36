#include "models/tabular_mlp.h"

#include "models/keyed_dropout.h"
#include "profile/scopes.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace headroom::models {

namespace {

std::string sizesText(const torch::Tensor &tensor) {
    std::string text = "[";
    for (std::int64_t axis = 0; axis < tensor.dim(); ++axis) {
        text += (axis > 0 ? ", " : "") + std::to_string(tensor.size(axis));
    }
    return text + "]";
}

} // namespace

void validateTabularMlpOptions(const TabularMlpOptions &options) {
    const auto fail = [](const std::string &message) {
        throw std::invalid_argument("tabular model: " + message);
    };
    if (options.numeric_features() < 0) {
        fail("numeric_features must not be negative, got " +
             std::to_string(options.numeric_features()));
    }
    if (options.numeric_features() == 0 && options.cardinalities().empty()) {
        fail("needs at least one numeric or categorical feature column");
    }
    for (std::size_t column = 0; column < options.cardinalities().size(); ++column) {
        if (options.cardinalities()[column] < 1) {
            fail("categorical column " + std::to_string(column) +
                 " needs at least 1 category (the unknown id 0), got " +
                 std::to_string(options.cardinalities()[column]));
        }
    }
    if (options.embedding_dim() < 0) {
        fail("embedding_dim must be 0 (automatic) or positive, got " +
             std::to_string(options.embedding_dim()));
    }
    for (const std::int64_t width : options.hidden()) {
        if (width < 1) {
            fail("hidden layer widths must be at least 1, got " + std::to_string(width));
        }
    }
    if (!(options.dropout() >= 0.0 && options.dropout() < 1.0)) {
        fail("dropout must be in [0, 1), got " + std::to_string(options.dropout()));
    }
    if (options.outputs() < 1) {
        fail("outputs must be the class count or 1 for regression, got " +
             std::to_string(options.outputs()));
    }
}

std::int64_t tabularEmbeddingDim(const TabularMlpOptions &options, std::int64_t cardinality) {
    if (options.embedding_dim() > 0) {
        return options.embedding_dim();
    }
    return std::max<std::int64_t>(2, std::min<std::int64_t>(16, (cardinality + 1) / 2));
}

TabularMlpImpl::TabularMlpImpl(const TabularMlpOptions &options) : options_(options) {
    validateTabularMlpOptions(options_);
    input_width_ = options_.numeric_features();
    for (std::size_t column = 0; column < options_.cardinalities().size(); ++column) {
        const std::int64_t cardinality = options_.cardinalities()[column];
        const std::int64_t width = tabularEmbeddingDim(options_, cardinality);
        embeddings_.push_back(register_module("embedding" + std::to_string(column),
                                              torch::nn::Embedding(cardinality, width)));
        input_width_ += width;
    }
    std::int64_t width = input_width_;
    for (std::size_t layer = 0; layer < options_.hidden().size(); ++layer) {
        hidden_.push_back(register_module("hidden" + std::to_string(layer),
                                          torch::nn::Linear(width, options_.hidden()[layer])));
        width = options_.hidden()[layer];
    }
    head_ = register_module("head", torch::nn::Linear(width, options_.outputs()));
    // Not a buffer: checkpoints hold exactly the parameters they always held.
    cardinality_limits_ = torch::tensor(options_.cardinalities(), torch::kLong);
}

const TabularMlpOptions &TabularMlpImpl::options() const {
    return options_;
}

torch::Tensor TabularMlpImpl::features(const torch::Tensor &numeric,
                                       const torch::Tensor &categorical) {
    const std::int64_t columns = static_cast<std::int64_t>(embeddings_.size());
    const std::int64_t features = options_.numeric_features();
    // Without numeric columns the numeric input may be undefined or [B, 0].
    const bool has_numeric = numeric.defined() && (features > 0 || numeric.numel() > 0);
    if (features > 0 || has_numeric) {
        if (!numeric.defined() || numeric.dim() != 2 || numeric.size(1) != features) {
            throw std::invalid_argument(
                "tabular model: numeric input must be [B, " + std::to_string(features) + "], got " +
                (numeric.defined() ? sizesText(numeric) : std::string("nothing")));
        }
    }
    const std::int64_t rows = features > 0 ? numeric.size(0) : categorical.size(0);
    if (columns > 0) {
        if (!categorical.defined() || categorical.dim() != 2 || categorical.size(1) != columns ||
            categorical.size(0) != rows) {
            throw std::invalid_argument(
                "tabular model: categorical input must be [" + std::to_string(rows) + ", " +
                std::to_string(columns) + "] int64, got " +
                (categorical.defined() ? sizesText(categorical) : std::string("nothing")));
        }
        if (categorical.scalar_type() != torch::kLong) {
            throw std::invalid_argument("tabular model: categorical input must be int64");
        }
    } else if (categorical.defined() && categorical.numel() > 0) {
        throw std::invalid_argument("tabular model: has no categorical columns but got input " +
                                    sizesText(categorical));
    }
    std::vector<torch::Tensor> parts;
    parts.reserve(embeddings_.size() + 1);
    if (features > 0) {
        parts.push_back(numeric);
    }
    if (columns > 0 && categorical.size(0) > 0 &&
        (categorical.lt(0) | categorical.ge(cardinality_limits_.to(categorical.device())))
            .any()
            .item<bool>()) {
        // One check per batch (a clear error beats an out-of-range index deep inside the
        // embedding kernel); only a bad batch looks for the column to name.
        const torch::Tensor low = std::get<0>(categorical.min(0)).cpu();
        const torch::Tensor high = std::get<0>(categorical.max(0)).cpu();
        for (std::int64_t column = 0; column < columns; ++column) {
            const std::int64_t cardinality = options_.cardinalities()[column];
            const std::int64_t lowest = low[column].item<std::int64_t>();
            const std::int64_t highest = high[column].item<std::int64_t>();
            if (lowest < 0 || highest >= cardinality) {
                throw std::invalid_argument("tabular model: categorical column " +
                                            std::to_string(column) + " has id " +
                                            std::to_string(lowest < 0 ? lowest : highest) +
                                            " outside 0.." + std::to_string(cardinality - 1));
            }
        }
    }
    for (std::int64_t column = 0; column < columns; ++column) {
        parts.push_back(embeddings_[column](categorical.select(1, column)));
    }
    return parts.size() == 1 ? parts.front() : torch::cat(parts, 1);
}

torch::Tensor TabularMlpImpl::forward(const torch::Tensor &numeric,
                                      const torch::Tensor &categorical) {
    torch::Tensor x;
    {
        const profile::ModuleScope scope("embeddings");
        x = features(numeric, categorical);
    }
    std::uint64_t site = 0;
    for (torch::nn::Linear &layer : hidden_) {
        const profile::ModuleScope scope("hidden", static_cast<std::int64_t>(site));
        x = torch::gelu(layer(x));
        ++site;
        if (options_.dropout() > 0 && is_training()) {
            x = keyedDropout(x, options_.dropout(), site);
        }
    }
    const profile::ModuleScope scope("head");
    return head_(x);
}

} // namespace headroom::models
