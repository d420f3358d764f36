// What the transformer models (models/gpt.h, models/causal_lm.h, models/bert_encoder.h) share when
// they are built: option checks, initialization, and the numbering of their dropout sites.
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace headroom::models {

// GPT-2's and BERT's initializer range.
inline constexpr double kInitStd = 0.02;

// Dropout sites (models/keyed_dropout.h): the embedding's, then a stride per layer numbering
// the sites within it. Within a layer: the attention weights, then the two residual-branch
// dropouts, the router's jitter, and the LoRA adapters' input dropouts from 10, 20 and (for
// experts) 100 on.
inline constexpr std::uint64_t kEmbeddingDropoutSite = 1;
inline constexpr std::uint64_t kLayerSiteStride = 1000;
inline constexpr std::uint64_t kAttentionWeightsSite = 1;
inline constexpr std::uint64_t kAttentionResidualSite = 2;
inline constexpr std::uint64_t kMlpResidualSite = 3;
inline constexpr std::uint64_t kRouterJitterSite = 4;
inline constexpr std::uint64_t kExpertLoraSites = 100;

// Throw std::invalid_argument "<kind> option <name> must be at least 1, got <value>" and
// "... must be in [0, 1), got <value>".
void requirePositiveOption(const char *kind, std::int64_t value, const char *name);
void requireProbabilityOption(const char *kind, double value, const char *name);

// Weight ~ N(0, std), bias 0.
void initLinear(torch::nn::Linear &linear, double std);
// Weight 1, bias 0.
void initLayerNorm(torch::nn::LayerNorm &norm);

} // namespace headroom::models
