#include "recipes/preference_scoring.h"

#include <cctype>
#include <cstdio>

namespace headroom::train {

ExampleBatch pairRows(const ExampleBatch &pairs) {
    ExampleBatch rows;
    rows.reserve(2 * pairs.size());
    rows.insert(rows.end(), pairs.begin(), pairs.end());
    for (const data::Example *pair : pairs) {
        TORCH_CHECK(pair->rejected.size() == 1,
                    "a preference objective needs preference pairs (prompt, chosen, rejected)");
        rows.push_back(&pair->rejected.front());
    }
    return rows;
}

std::vector<data::Example> chosenWithPrompts(const ExampleBatch &pairs) {
    std::vector<data::Example> chosen;
    chosen.reserve(pairs.size());
    for (const data::Example *pair : pairs) {
        data::Example sequence;
        sequence.tokens = pair->tokens;
        sequence.real_tokens = pair->real_tokens;
        chosen.push_back(std::move(sequence));
    }
    return chosen;
}

PreferenceScorer::PreferenceScorer(PreferenceOptions options, models::CausalLm reference)
    : options_(options), reference_(std::move(reference)) {}

SequenceLogps PreferenceScorer::referenceLogps(models::CausalLmImpl &policy,
                                               const ExampleBatch &pairs,
                                               const LanguageModelBatch &rows) {
    if (!needsReference(options_.objective)) {
        return {};
    }
    const torch::Tensor counts = rows.targets.ne(-100).sum(1).to(torch::kFloat32);
    if (table_) {
        std::vector<float> sums(2 * pairs.size());
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            const auto found = table_->find(data::exampleOrdinal(pairs[i]->id));
            TORCH_CHECK(found != table_->end(), "the precomputed reference has no pair ",
                        data::exampleOrdinal(pairs[i]->id),
                        ": the data changed since it was computed");
            sums[i] = found->second[0];
            sums[pairs.size() + i] = found->second[1];
        }
        return {torch::tensor(sums).to(counts.device()), counts};
    }
    torch::NoGradGuard no_grad;
    if (reference_) {
        return sequenceLogps(reference_->targetLosses(rows.inputs, rows.targets), rows.targets);
    }
    TORCH_CHECK(policy.loraOptions().has_value(),
                "the reference model is missing: a full fine-tune needs its frozen copy");
    const models::ScopedAdaptersOff base_only;
    return sequenceLogps(policy.targetLosses(rows.inputs, rows.targets), rows.targets);
}

PreferenceTerms PreferenceScorer::score(models::CausalLmImpl &policy, const ExampleBatch &pairs,
                                        const LanguageModelBatch &rows,
                                        const torch::Tensor &chosen_targets) {
    const SequenceLogps reference = referenceLogps(policy, pairs, rows);
    if (!chosen_targets.defined()) {
        const SequenceLogps logps =
            sequenceLogps(policy.targetLosses(rows.inputs, rows.targets), rows.targets);
        return preferenceTerms(options_, logps, reference);
    }
    // One pass with the chosen rows' prompts as targets too: the completions' log-probabilities
    // are the scored targets' share of it.
    const std::int64_t count = chosen_targets.size(0);
    const torch::Tensor targets = torch::cat({chosen_targets, rows.targets.slice(0, count)}, 0);
    const torch::Tensor losses = policy.targetLosses(rows.inputs, targets);
    const torch::Tensor scored = rows.targets.ne(-100);
    const SequenceLogps logps{-(losses * scored).sum(1), scored.sum(1).to(torch::kFloat32)};
    const torch::Tensor chosen_losses = losses.slice(0, 0, count);
    const torch::Tensor nll =
        chosen_losses.sum(1) / chosen_targets.ne(-100).sum(1).clamp_min(1).to(torch::kFloat32);
    return preferenceTerms(options_, logps, reference, nll);
}

std::vector<std::array<float, 2>> PreferenceScorer::referenceSums(models::CausalLmImpl &policy,
                                                                  const LanguageModelBatch &rows) {
    const torch::Tensor sums =
        referenceLogps(policy, {}, rows).sums.to(torch::kCPU, torch::kFloat32).contiguous();
    const std::int64_t pairs = sums.size(0) / 2;
    std::vector<std::array<float, 2>> result(static_cast<std::size_t>(pairs));
    const float *values = sums.data_ptr<float>();
    for (std::int64_t i = 0; i < pairs; ++i) {
        result[static_cast<std::size_t>(i)] = {values[i], values[pairs + i]};
    }
    return result;
}

void PreferenceScorer::useTable(std::shared_ptr<const ReferenceTable> table) {
    table_ = std::move(table);
    reference_ = models::CausalLm{nullptr};
}

void PreferenceScorer::moveTo(const torch::Device &device) {
    if (reference_) {
        reference_->to(device);
    }
}

std::string PreferenceScorer::describe() const {
    char text[160];
    std::string name = objectiveName(options_.objective);
    for (char &c : name) {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    std::snprintf(text, sizeof text, "%s (beta %g)", name.c_str(), options_.beta);
    std::string description = text;
    if (!needsReference(options_.objective)) {
        return description + ", no reference model";
    }
    if (table_) {
        return description + " against the reference's log-probabilities computed before training";
    }
    if (!reference_) {
        return description + " against the base with the adapters off";
    }
    return description + " against a frozen copy of the base" +
           (reference_->baseFormat() == models::BaseFormat::Fp32
                ? std::string()
                : " (" + models::baseFormatName(reference_->baseFormat()) + ")");
}

PreferenceStepMetrics preferenceStepMetrics(const PreferenceTerms &terms) {
    PreferenceStepMetrics metrics;
    const auto mean = [](const torch::Tensor &values) {
        return values.mean().item<double>();
    };
    metrics.chosen_logps = mean(terms.chosen_logps);
    metrics.rejected_logps = mean(terms.rejected_logps);
    metrics.chosen_rewards = mean(terms.chosen_rewards);
    metrics.rejected_rewards = mean(terms.rejected_rewards);
    metrics.reward_margin = mean(terms.chosen_rewards - terms.rejected_rewards);
    metrics.reward_accuracy =
        mean(terms.chosen_rewards.gt(terms.rejected_rewards).to(torch::kFloat));
    return metrics;
}

void addPreferenceTotals(const PreferenceTerms &terms, EvalTotals &totals) {
    totals.loss_sum += terms.pair_losses.sum().item<double>();
    totals.correct += terms.chosen_rewards.gt(terms.rejected_rewards).sum().item<double>();
    totals.examples += terms.pair_losses.size(0);
}

} // namespace headroom::train
