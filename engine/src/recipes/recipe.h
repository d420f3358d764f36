#pragma once

#include "data/example.h"
#include "hf/model_folder.h"
#include "hf/quantized_base_cache.h"
#include "models/document_layout.h"
#include "models/generation.h"
#include "models/gpt.h"
#include "util/base_format.h"

#include <headroom/metrics.h>

#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace headroom {
class Config;
}
namespace headroom::data {
struct TabularSchema;
class Tokenizer;
} // namespace headroom::data

namespace headroom::train {

using ExampleBatch = std::vector<const data::Example *>;

// A preference reference model's summed log-probabilities of each pair's chosen and rejected
// completion, by the pair's ordinal (data::exampleOrdinal): computed once before training
// (pref.precompute_reference).
using ReferenceTable = std::unordered_map<std::uint64_t, std::array<float, 2>>;

// Sums over a validation pass; a recipe adds what it can measure.
struct EvalTotals {
    double loss_sum = 0;       // sum of per-example losses
    double correct = 0;        // classification
    double squared_error = 0;  // regression, in the target's original units
    double target_sum = 0;     // regression: sum and sum of squares of the targets (original
    double target_squares = 0; // units), for R^2
    std::int64_t examples = 0;
    // splade: retrieval quality over the split (NaN otherwise), set by finishEvaluation.
    double mrr_at_10 = std::numeric_limits<double>::quiet_NaN();
    double recall_at_100 = std::numeric_limits<double>::quiet_NaN();
};

// A training forward pass: what is reported and what backward runs on.
struct TrainingLoss {
    torch::Tensor loss;      // the reported loss (a scalar on the training device)
    torch::Tensor objective; // loss plus the weighted auxiliary losses (MoE balancing)
    std::optional<models::MoeRouting> moe; // the MoE blocks' routing, with MoE blocks
    // The objective is already this micro-batch's part of the whole step's objective (a recipe
    // that couples the step's examples): backward runs on it as it is, not weighted by the
    // micro-batch's share; `loss` is then the whole step's loss.
    bool step_total = false;
    std::optional<RetrievalStepMetrics> retrieval;   // splade
    std::optional<PreferenceStepMetrics> preference; // preference objectives: this micro-batch's
};

// Elements of every parameter (a tied weight counts once: it is one parameter).
std::int64_t countParameters(const torch::nn::Module &module);

// What the trainer needs from a model family: the module, batch collation and losses.
class Recipe {
public:
    virtual ~Recipe() = default;

    virtual std::shared_ptr<torch::nn::Module> module() = 0;
    // Moves the model (parameters and buffers) and where batches go to `device` (a run that
    // falls back from a GPU to the CPU).
    virtual void moveTo(const torch::Device &device) = 0;
    // Mean loss over the batch (a scalar on the training device, attached to the graph).
    virtual torch::Tensor loss(const ExampleBatch &batch) = 0;
    // The training step's forward pass: by default the loss is the objective.
    virtual TrainingLoss trainingLoss(const ExampleBatch &batch) {
        TrainingLoss result;
        result.loss = loss(batch);
        result.objective = result.loss;
        return result;
    }
    // A recipe whose loss couples the examples of a step (SPLADE's in-batch negatives) returns
    // true: the trainer then calls prepareStep with the step's whole effective batch (inside
    // its out-of-memory recovery, under the training autocast state) before the micro-batches,
    // and each micro-batch's trainingLoss returns a step_total objective.
    virtual bool couplesExamples() const { return false; }
    // `micro_batch`: how the step is cut; `dropout_step_seed`: the step's dropout seed (the
    // trainer keys each micro-batch's dropout with it and the micro-batch's first row).
    virtual void prepareStep(const ExampleBatch &all, std::size_t micro_batch,
                             std::uint64_t dropout_step_seed, std::int64_t step) {}

    // Adds this batch to the totals (called under NoGradGuard, module in eval mode).
    virtual void evaluate(const ExampleBatch &batch, EvalTotals &totals) = 0;
    // Around one pass over a split: measures that need every example at once (retrieval).
    virtual void beginEvaluation() {}
    virtual void finishEvaluation(EvalTotals &totals) {}
    // Tokens an example contributes to throughput (gpt: seq_len; tabular: 0).
    virtual std::int64_t tokensPerExample() const = 0;
    // Tokens a step's examples hold, for throughput; by default tokensPerExample() each.
    virtual std::int64_t tokensOf(const std::vector<data::Example> &examples) const {
        return tokensPerExample() * static_cast<std::int64_t>(examples.size());
    }
    // Tokens a step computes on, padding included; by default tokensOf (no padding).
    virtual std::int64_t computedTokensOf(const std::vector<data::Example> &examples) const {
        return tokensOf(examples);
    }
    // Called with a step's whole effective batch before its micro-batches (again when an
    // out-of-memory recovery replays it): a language model pads every micro-batch of the step
    // to the step's longest example, so the tensors, and the keyed dropout masks drawn over
    // them, do not depend on how the step is cut.
    virtual void beginStep(const std::vector<data::Example> &examples) {}
    virtual bool reportsAccuracy() const = 0;
    virtual bool reportsRmse() const = 0; // and R^2
    // "GPT · 4 layers · dim 128 · 4 heads · 0.82 M parameters"
    virtual std::string describe() const = 0;

    // Sparse retrieval vectors [N, V] of token sequences (splade); an undefined tensor for
    // recipes that have none.
    virtual torch::Tensor textVectors(const std::vector<std::vector<std::int32_t>> &texts) {
        return {};
    }

    // Next-token logits for generation (language models); nullptr when the recipe has none.
    virtual std::unique_ptr<models::NextTokenLogits> nextTokenLogits() { return nullptr; }

    // Recomputes activations of every k-th block in backward (0 = off). False when the
    // recipe has nothing to checkpoint.
    virtual bool setActivationCheckpointing(std::int64_t every) { return every == 0; }

    // Holds the frozen base's projection weights in `format` from now on (a pretrained model's
    // LoRA base). False when the recipe has no such base; fp32 is always accepted.
    virtual bool setBaseFormat(BaseFormat format) { return format == BaseFormat::Fp32; }

    // The model's parameters, a frozen base held quantized included.
    virtual std::int64_t parameterCount() { return countParameters(*module()); }

    // Preference objectives with a reference model: whether pref.precompute_reference asks for
    // a ReferenceTable before training, the reference's sums for a batch of pairs (in order;
    // called under NoGradGuard), and adopting the table: from then on no reference model runs,
    // and a frozen copy of the base is released.
    virtual bool precomputesReference() const { return false; }
    virtual std::vector<std::array<float, 2>> referenceLogps(const ExampleBatch &batch) {
        return {};
    }
    virtual void useReferenceTable(std::shared_ptr<const ReferenceTable> table) {}

    // Online RL (grpo): a step draws effective_batch / rowsPerExample() examples (prompts) and
    // trains on the rows expandStep makes of them (rowsPerExample() sampled completions each,
    // with what scoring them needs). expandStep runs inside out-of-memory recovery: called
    // again for the same step (after a smaller micro-batch was chosen) it returns the same rows
    // without sampling again; it samples at most `micro_batch` rows at once. The rows' losses
    // are step_total parts.
    virtual std::int64_t rowsPerExample() const { return 1; }
    virtual bool expandsStep() const { return false; }
    virtual std::vector<data::Example> expandStep(const std::vector<data::Example> &examples,
                                                  std::size_t micro_batch, std::int64_t step) {
        return examples;
    }
    // The step's online-RL figures, once its micro-batches ran.
    virtual std::optional<GrpoStepMetrics> grpoStepMetrics() const { return std::nullopt; }
    // Lines for the log after a validation pass (grpo: sampled completions with their rewards).
    virtual std::vector<std::string> evaluationSamples() { return {}; }
};

// Sets to -100 (ignored by the loss) the targets [B, seq_len] that an example does not learn: a
// prompt/completion example's prompt and padding (data::Example::prompt_tokens / real_tokens),
// a conversation's tokens outside the trained turns (data::Example::trained).
void maskUntrainedTargets(torch::Tensor &targets, const ExampleBatch &batch);

// A language model's batch from its examples: inputs and targets [B, T] with T the longest
// example's real tokens minus one (at most seq_len), so a batch of short prompt/completion or
// conversation examples is padded to its longest, not to model.seq_len; untrained targets are
// -100 (maskUntrainedTargets). Rows of packed documents (data.packing) come with their layout.
struct LanguageModelBatch {
    torch::Tensor inputs;
    torch::Tensor targets;
    models::DocumentLayout layout; // undefined unless the rows are packed
    const models::DocumentLayout *packed() const { return layout.defined() ? &layout : nullptr; }
};
// min_width: pad to at least this many tokens (a step's longest example; 0 = the batch's own).
LanguageModelBatch languageModelBatch(const ExampleBatch &batch, std::int64_t seq_len,
                                      const torch::Device &device, std::int64_t min_width = 0);
// The width languageModelBatch pads the examples to: their longest (a preference pair's rejected
// sequence included), at least 2 tokens.
std::int64_t longestExample(const std::vector<data::Example> &examples);

// Tokens of the examples that are not padding, the inputs a step really computes on.
std::int64_t realInputTokens(const std::vector<data::Example> &examples, std::int64_t seq_len);
// The tokens languageModelBatch computes on for a step's examples (each padded to the longest).
std::int64_t paddedInputTokens(const std::vector<data::Example> &examples, std::int64_t seq_len);

// Adds to `totals` each document's mean loss from the per-target losses [B, T] (0 where the
// target is -100): one per document of a packed row, one per other row; a document without
// targets adds nothing. So a file evaluates to the same loss packed and unpacked.
void addDocumentLosses(const torch::Tensor &target_losses, const torch::Tensor &targets,
                       const ExampleBatch &batch, EvalTotals &totals);

// The GPT shape a config asks for: model.params when set, else layers/heads/dim; the moe.*
// keys. Throws ConfigError when the options are not valid (the message names the moe.* key).
models::GptOptions gptOptionsFromConfig(const Config &config, std::int64_t vocab_size);

// model.hidden ("128,64") as widths; the config validated the text.
std::vector<std::int64_t> parseHiddenWidths(const std::string &text);

std::unique_ptr<Recipe> makeGptRecipe(const Config &config, std::int64_t vocab_size,
                                      torch::Device device);
// The GPT recipe over the pretrained model in `base` (model.base, located), its weights
// imported from the folder. With an int8/nf4 model.base_dtype and an enabled cache, the
// quantized projections come from the cache when it matches the base, and are written to it
// otherwise (a failure to write is reported through progress, not thrown). Throws ConfigError
// (model.seq_len beyond the model's context) or hf::ModelFolderError.
// train.objective=grpo needs the base's `tokenizer` (it decodes completions for the rewards).
std::unique_ptr<Recipe>
makePretrainedRecipe(const Config &config, const hf::ModelFolder &base, torch::Device device,
                     const std::function<void(const std::string &)> &progress = {},
                     const hf::QuantizedBaseCache &cache = {},
                     const data::Tokenizer *tokenizer = nullptr);
// The SPLADE recipe over the BERT-family masked language model in `base` (model.base,
// located). Throws ConfigError or hf::ModelFolderError.
std::unique_ptr<Recipe> makeSpladeRecipe(const Config &config, const hf::ModelFolder &base,
                                         torch::Device device);
// Loss weight per class for train.class_weights (none | balanced | auto) on the schema's
// training class counts; empty when every class weighs the same.
std::vector<double> classWeights(const std::string &mode, const data::TabularSchema &schema);
std::unique_ptr<Recipe> makeTabularRecipe(const Config &config, const data::TabularSchema &schema,
                                          torch::Device device);

} // namespace headroom::train
