// The SPLADE recipe: a masked language model fine-tuned as a sparse retrieval encoder on
// query/passage examples (data::Example segments), with in-batch and hard negatives.
//
// In-batch negatives couple a step's examples: each query is scored against every passage of
// the whole effective batch, however the step is cut into micro-batches. The recipe does that
// exactly with a two-pass gradient cache (Gao et al., "Scaling Deep Contrastive Learning Batch
// Size under Memory Limited Setup", 2021): prepareStep encodes every text of the step without
// a graph, computes the loss over the whole batch and its gradient with respect to each
// vector; each micro-batch then encodes its texts again with a graph and back-propagates those
// cached gradients. Dropout is keyed per text and the texts are padded to the step's longest,
// so both passes give the same vectors: the gradient equals the full batch's, and an
// out-of-memory replay at a smaller micro-batch trains the same.
#pragma once

#include "recipes/recipe.h"
#include "recipes/sparse_ranking.h"

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace headroom::train {

// What SPLADE needs from a masked language model.
class MaskedLanguageModel {
public:
    virtual ~MaskedLanguageModel() = default;
    virtual std::shared_ptr<torch::nn::Module> module() = 0;
    // ids and mask [N, T] (int64; mask 1 = real token) -> MLM logits [N, T, V].
    virtual torch::Tensor logits(const torch::Tensor &ids, const torch::Tensor &mask) = 0;
    virtual void setCheckpointEvery(std::int64_t every) = 0;
    virtual std::int64_t vocabSize() const = 0;
    // "BertForMaskedLM · 12 layers · dim 768 · ..."
    virtual std::string describe() const = 0;
};

struct SpladeSettings {
    double lambda_q = 5e-4;
    double lambda_d = 3e-4;
    std::int64_t warmup_steps = 0;
    std::int32_t pad_id = 0;
    std::int64_t max_length = 64; // tokens per text (for throughput estimates)
    std::int64_t hard_negatives = 1;
};

std::unique_ptr<Recipe> makeSpladeRecipe(std::unique_ptr<MaskedLanguageModel> model,
                                         const SpladeSettings &settings, torch::Device device);

// The SPLADE vectors [N, V] of token sequences (each with its specials), padded with pad_id to
// the longest; in the model's current mode and the caller's grad mode.
torch::Tensor spladeVectors(MaskedLanguageModel &model,
                            const std::vector<std::vector<std::int32_t>> &texts,
                            std::int32_t pad_id, torch::Device device);

// The non-zero entries of each row of [N, V], largest first; at most `top` (0 = all) per row.
std::vector<SparseVector> sparseRows(const torch::Tensor &vectors, std::int64_t top = 0);

} // namespace headroom::train
