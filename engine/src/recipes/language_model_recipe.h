// What the two language-model recipes (a GPT from scratch, a pretrained causal model) share:
// batches padded to the step's longest example, real-token throughput, per-document
// evaluation.
#pragma once

#include "recipes/recipe.h"

namespace headroom::train {

class LanguageModelRecipe : public Recipe {
public:
    explicit LanguageModelRecipe(std::int64_t seq_len) : seq_len_(seq_len) {}

    void evaluate(const ExampleBatch &batch, EvalTotals &totals) override {
        const LanguageModelBatch tokens = languageModelBatch(batch, seq_len_, device());
        addDocumentLosses(targetLosses(tokens), tokens.targets, batch, totals);
    }
    std::int64_t tokensPerExample() const override { return seq_len_; }
    std::int64_t tokensOf(const std::vector<data::Example> &examples) const override {
        return realInputTokens(examples, seq_len_);
    }
    std::int64_t computedTokensOf(const std::vector<data::Example> &examples) const override {
        return paddedInputTokens(examples, seq_len_);
    }
    void beginStep(const std::vector<data::Example> &examples) override {
        step_width_ = longestExample(examples);
    }

protected:
    // Where batches go.
    virtual torch::Device device() const = 0;
    // The per-target losses [B, T] of a batch (0 where the target is -100).
    virtual torch::Tensor targetLosses(const LanguageModelBatch &tokens) = 0;
    // A training batch: padded to the current step's longest example.
    LanguageModelBatch trainingBatch(const ExampleBatch &batch) const {
        return languageModelBatch(batch, seq_len_, device(), step_width_);
    }

    std::int64_t seq_len_;

private:
    std::int64_t step_width_ = 0; // the training step's longest example (beginStep)
};

} // namespace headroom::train
