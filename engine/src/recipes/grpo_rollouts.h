// A GRPO step's rollouts: each prompt's group of completions sampled from the policy with the
// KV cache, scored by the rewards, turned into advantages, and (with a KL penalty) the
// reference's token log-probabilities; then the micro-batches' losses over those completions,
// and the step's figures.
#pragma once

#include "models/causal_lm.h"
#include "recipes/grpo_objective.h"
#include "recipes/recipe.h"
#include "rewards/rewards.h"
#include "tokenizers/tokenizer.h"

#include <headroom/metrics.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom::train {

class GrpoRollouts {
public:
    // `reference`: a frozen copy of the base for a full fine-tune with grpo.beta > 0; null with
    // LoRA (the policy with its adapters off is the reference) or without a KL penalty.
    // `bnpo_block`: the configured micro-batch (bnpo's normalisation blocks).
    GrpoRollouts(GrpoOptions options, rewards::RewardSet rewards, models::CausalLm reference,
                 const data::Tokenizer &tokenizer, std::vector<std::int64_t> eos_ids,
                 std::int64_t seq_len, std::int64_t bnpo_block, std::uint64_t seed);

    // The step's completions as rows (prompt + completion, padded to seq_len + 1; the row's id
    // its place in the step), sampled at most `micro_batch` rows at a time. The same step again
    // returns the same rows. Throws rewards::RewardError when a reward cannot be computed.
    std::vector<data::Example> expand(models::CausalLmImpl &policy,
                                      const std::vector<data::Example> &prompts,
                                      std::size_t micro_batch, std::int64_t step,
                                      const torch::Device &device);
    // A micro-batch of the step's rows (`tokens`: their LanguageModelBatch): its part of the
    // step's loss.
    TrainingLoss trainingLoss(models::CausalLmImpl &policy, const ExampleBatch &rows,
                              const LanguageModelBatch &tokens);
    std::optional<GrpoStepMetrics> stepMetrics() const;

    // Validation: a group sampled for each prompt (the same draws at every validation), its
    // mean reward; the loss is minus the mean reward.
    void evaluate(models::CausalLmImpl &policy, const ExampleBatch &prompts, EvalTotals &totals,
                  const torch::Device &device);
    void beginEvaluation() { samples_.clear(); }
    std::vector<std::string> evaluationSamples() const { return samples_; }

    void moveTo(const torch::Device &device);
    const GrpoOptions &options() const { return options_; }
    // "GRPO (group 8, dapo loss) rewarded by exact:answer, format:…"
    std::string describe() const;

private:
    struct Completion {
        std::vector<std::int64_t> ids;
        double reward = 0;
        std::vector<double> term_rewards;
        std::string text;
    };
    // Samples and scores the groups of `prompts`, row keys from `key_of(prompt, member)`,
    // sampling_rows_ rows at a time (halved after an out-of-memory error there, down to 1).
    std::vector<std::vector<Completion>>
    sampleGroups(models::CausalLmImpl &policy, const std::vector<const data::Example *> &prompts,
                 const std::function<std::uint64_t(const data::Example &, std::size_t)> &key_of,
                 const torch::Device &device);
    // The token log-probabilities of each row's completion, by `model` (or the policy with its
    // adapters off when `adapters_off`), in chunks of `rows_at_once`.
    std::vector<std::vector<float>> completionLogps(models::CausalLmImpl &model, bool adapters_off,
                                                    const std::vector<data::Example> &rows,
                                                    std::size_t rows_at_once,
                                                    const torch::Device &device);
    torch::Tensor rowValues(const ExampleBatch &rows, const std::vector<std::vector<float>> &values,
                            const torch::Tensor &like) const;

    GrpoOptions options_;
    rewards::RewardSet rewards_;
    models::CausalLm reference_;
    const data::Tokenizer &tokenizer_;
    std::vector<std::int64_t> eos_ids_;
    std::int64_t seq_len_;
    std::int64_t bnpo_block_;
    std::uint64_t seed_;
    // Rows sampled at once: a whole group, unless sampling ran out of memory. A group's KV cache
    // is far smaller than a training pass over it, so this does not follow the micro-batch.
    std::size_t sampling_rows_;

    // The current step's rollouts.
    std::int64_t step_ = -1;
    std::vector<std::uint64_t> prompt_ids_;
    std::vector<data::Example> rows_;
    std::vector<double> advantages_;
    std::vector<double> weights_;
    std::vector<std::vector<float>> ref_logps_; // grpo.beta > 0
    GrpoStepMetrics figures_;
    double kl_sum_ = 0;
    double clipped_sum_ = 0;
    double token_sum_ = 0;

    std::vector<std::string> samples_; // the last validation's, for the log
};

} // namespace headroom::train
