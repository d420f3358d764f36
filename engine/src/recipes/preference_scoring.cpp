#include "recipes/preference_scoring.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

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

std::vector<data::Example> ktoMismatchedSequences(const ExampleBatch &records,
                                                  std::int64_t seq_len) {
    const std::size_t width = static_cast<std::size_t>(seq_len + 1);
    std::vector<data::Example> sequences;
    sequences.reserve(records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
        const data::Example &prompt_of = *records[i];
        const data::Example &completion_of = *records[(i + records.size() - 1) % records.size()];
        data::Example sequence;
        sequence.tokens.assign(prompt_of.tokens.begin(),
                               prompt_of.tokens.begin() + prompt_of.prompt_tokens);
        sequence.tokens.insert(sequence.tokens.end(),
                               completion_of.tokens.begin() + completion_of.prompt_tokens,
                               completion_of.tokens.begin() + completion_of.real_tokens);
        sequence.tokens.resize(std::min(sequence.tokens.size(), width));
        sequence.prompt_tokens = prompt_of.prompt_tokens;
        sequence.real_tokens = static_cast<std::int32_t>(sequence.tokens.size());
        sequence.tokens.resize(width, completion_of.tokens.back());
        sequences.push_back(std::move(sequence));
    }
    return sequences;
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

PreferenceTerms PreferenceScorer::scoreUnpaired(models::CausalLmImpl &policy,
                                                const ExampleBatch &records,
                                                const LanguageModelBatch &rows, double kl) {
    const SequenceLogps reference = referenceLogps(policy, {}, rows);
    const SequenceLogps logps =
        sequenceLogps(policy.targetLosses(rows.inputs, rows.targets), rows.targets);
    std::vector<std::uint8_t> desirable;
    for (const data::Example *record : records) {
        desirable.push_back(record->target > 0.5 ? 1 : 0);
    }
    const torch::Tensor labels =
        torch::tensor(std::vector<std::int64_t>(desirable.begin(), desirable.end()))
            .to(torch::kBool)
            .to(rows.inputs.device());
    return ktoTerms(options_, logps, reference, labels, kl);
}

double PreferenceScorer::mismatchedLogRatioSum(models::CausalLmImpl &policy,
                                               const LanguageModelBatch &mismatched) {
    torch::NoGradGuard no_grad;
    const SequenceLogps reference = referenceLogps(policy, {}, mismatched);
    const SequenceLogps logps = sequenceLogps(
        policy.targetLosses(mismatched.inputs, mismatched.targets), mismatched.targets);
    return (logps.sums - reference.sums).sum().item<double>();
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

namespace {

// The mean of `values` where `mask` (0 or 1) holds; NaN (0/0) where it never does.
torch::Tensor maskedMean(const torch::Tensor &values, const torch::Tensor &mask) {
    return (values * mask).sum() / mask.sum();
}

// KTO: records whose reward has the sign of their label (above 0 desirable, below undesirable).
torch::Tensor rightlyRewarded(const PreferenceTerms &terms) {
    return torch::where(terms.desirable, terms.chosen_rewards.gt(0), terms.chosen_rewards.lt(0));
}

} // namespace

PreferenceStepMetrics preferenceStepMetrics(const PreferenceTerms &terms) {
    // The training step calls this for every micro-batch: one copy to the host, not one each.
    std::vector<torch::Tensor> means;
    if (terms.desirable.defined()) {
        const torch::Tensor desirable = terms.desirable.to(torch::kFloat);
        const torch::Tensor undesirable = 1 - desirable;
        means = {maskedMean(terms.chosen_logps, desirable),
                 maskedMean(terms.chosen_logps, undesirable),
                 maskedMean(terms.chosen_rewards, desirable),
                 maskedMean(terms.chosen_rewards, undesirable),
                 rightlyRewarded(terms).to(torch::kFloat).mean()};
    } else {
        means = {terms.chosen_logps.mean(), terms.rejected_logps.mean(),
                 terms.chosen_rewards.mean(), terms.rejected_rewards.mean(),
                 terms.chosen_rewards.gt(terms.rejected_rewards).to(torch::kFloat).mean()};
    }
    const torch::Tensor host = torch::stack(means).to(torch::kCPU, torch::kDouble).contiguous();
    const double *value = host.data_ptr<double>();
    PreferenceStepMetrics metrics;
    metrics.chosen_logps = value[0];
    metrics.rejected_logps = value[1];
    metrics.chosen_rewards = value[2];
    metrics.rejected_rewards = value[3];
    metrics.reward_accuracy = value[4];
    metrics.reward_margin = metrics.chosen_rewards - metrics.rejected_rewards;
    if (terms.desirable.defined()) {
        metrics.kl = terms.kl;
    }
    return metrics;
}

void PreferenceStepMeans::add(PreferenceStepMetrics part, double share) {
    const std::array<double *, 7> figures = part.figures();
    for (std::size_t i = 0; i < figures.size(); ++i) {
        if (std::isfinite(*figures[i])) {
            sums_[i] += *figures[i] * share;
            weights_[i] += share;
        }
    }
    any_ = true;
}

std::optional<PreferenceStepMetrics> PreferenceStepMeans::means() const {
    if (!any_) {
        return std::nullopt;
    }
    PreferenceStepMetrics metrics;
    const std::array<double *, 7> figures = metrics.figures();
    for (std::size_t i = 0; i < figures.size(); ++i) {
        *figures[i] =
            weights_[i] > 0 ? sums_[i] / weights_[i] : std::numeric_limits<double>::quiet_NaN();
    }
    // The margin of the step's means: for pairs the mean of the pairs' margins, and for KTO
    // defined even when no micro-batch held both kinds of record.
    metrics.reward_margin = metrics.chosen_rewards - metrics.rejected_rewards;
    return metrics;
}

void addPreferenceTotals(const PreferenceTerms &terms, EvalTotals &totals) {
    totals.loss_sum += terms.pair_losses.sum().item<double>();
    totals.correct += (terms.desirable.defined() ? rightlyRewarded(terms)
                                                 : terms.chosen_rewards.gt(terms.rejected_rewards))
                          .sum()
                          .item<double>();
    totals.examples += terms.pair_losses.size(0);
}

} // namespace headroom::train
