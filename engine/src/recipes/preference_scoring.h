// A pretrained causal model trained on preference pairs: each pair's chosen and rejected
// sequences go through one forward pass of the policy (rows 0..B-1 chosen, B..2B-1 rejected), the
// reference's log-probabilities through one no-grad pass of the base with the LoRA adapters
// switched off, or of a frozen copy of the base when every weight trains.
#pragma once

#include "models/causal_lm.h"
#include "recipes/preference_objective.h"
#include "recipes/recipe.h"

#include <headroom/metrics.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace headroom::train {

// The rows of pairs as a language model batch takes them: every chosen sequence, then every
// rejected one.
ExampleBatch pairRows(const ExampleBatch &pairs);
// The chosen sequences with their prompts as targets too (orpo's next-token loss).
std::vector<data::Example> chosenWithPrompts(const ExampleBatch &pairs);
// KTO's mismatched sequences, as TRL makes them: record i's prompt with record i-1's completion
// (the first record's with the last's), each cut at seq_len + 1 tokens and padded to them.
std::vector<data::Example> ktoMismatchedSequences(const ExampleBatch &records,
                                                  std::int64_t seq_len);

class PreferenceScorer {
public:
    // `reference`: the frozen copy a full fine-tune compares with; null with LoRA (the policy's
    // base is the reference) or for an objective without a reference.
    PreferenceScorer(PreferenceOptions options, models::CausalLm reference);

    // The objective's terms on the pairs as a batch of pairRows (LanguageModelBatch of 2B
    // rows). `chosen_targets` [B, T] (orpo): the chosen rows' targets with the prompt kept (only
    // the padding -100), for the next-token loss TRL adds over the whole chosen sequence.
    PreferenceTerms score(models::CausalLmImpl &policy, const ExampleBatch &pairs,
                          const LanguageModelBatch &rows, const torch::Tensor &chosen_targets = {});
    // KTO: the terms of unpaired records (a LanguageModelBatch of B rows) with the step's KL
    // estimate, and the sum over mismatched rows of the policy's log-ratio to the reference
    // (no gradient), whose mean (at least 0) is that estimate.
    PreferenceTerms scoreUnpaired(models::CausalLmImpl &policy, const ExampleBatch &records,
                                  const LanguageModelBatch &rows, double kl);
    double mismatchedLogRatioSum(models::CausalLmImpl &policy,
                                 const LanguageModelBatch &mismatched);
    // The reference's summed log-probabilities of each pair (chosen, rejected).
    std::vector<std::array<float, 2>> referenceSums(models::CausalLmImpl &policy,
                                                    const LanguageModelBatch &rows);
    // The reference from `table` from now on; a frozen copy is released.
    void useTable(std::shared_ptr<const ReferenceTable> table);
    void moveTo(const torch::Device &device);
    const PreferenceOptions &options() const { return options_; }
    // "DPO (beta 0.1) against the base with its adapters off"
    std::string describe() const;

private:
    // The reference's log-probabilities of the rows: from the table, else computed.
    SequenceLogps referenceLogps(models::CausalLmImpl &policy, const ExampleBatch &pairs,
                                 const LanguageModelBatch &rows);

    PreferenceOptions options_;
    models::CausalLm reference_;
    std::shared_ptr<const ReferenceTable> table_;
};

// The means over a micro-batch's pairs (KTO: records).
PreferenceStepMetrics preferenceStepMetrics(const PreferenceTerms &terms);

// A step's figures over its micro-batches, each weighted by its share of the step; a figure a
// micro-batch could not measure (NaN: KTO's desirable records where it has none) leaves that
// micro-batch out of that figure's mean.
class PreferenceStepMeans {
public:
    void reset() { *this = PreferenceStepMeans(); }
    void add(PreferenceStepMetrics part, double share);
    std::optional<PreferenceStepMetrics> means() const;

private:
    std::array<double, 7> sums_{};
    std::array<double, 7> weights_{};
    bool any_ = false;
};
// Adds a validation batch's pairs: loss, and whether the chosen reward is the higher (correct).
void addPreferenceTotals(const PreferenceTerms &terms, EvalTotals &totals);

} // namespace headroom::train
