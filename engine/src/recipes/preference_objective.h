// Preference objectives on a pair's log-probabilities, as TRL defines them (the TRL files and
// version followed are named in docs/FINE_TUNING.md): DPO (sigmoid, with conservative label
// smoothing), IPO, SimPO, ORPO, and KTO on unpaired records.
#pragma once

#include <torch/torch.h>

#include <optional>
#include <string>

namespace headroom {
class Config;
}

namespace headroom::train {

enum class PreferenceObjective { Dpo, Ipo, Simpo, Orpo, Kto };

struct PreferenceOptions {
    PreferenceObjective objective = PreferenceObjective::Dpo;
    double beta = 0.1;
    double label_smoothing = 0;
    double simpo_gamma = 0.5;
    double orpo_lambda = 0.1;
    double kto_desirable_weight = 1;
    double kto_undesirable_weight = 1;
};

// train.objective and the pref.* keys; nothing for sft and grpo.
std::optional<PreferenceOptions> preferenceOptions(const Config &config);
std::string objectiveName(PreferenceObjective objective);

// DPO, IPO and KTO compare the policy with a frozen reference model; SimPO and ORPO need none.
bool needsReference(PreferenceObjective objective);
// IPO, SimPO and ORPO score a completion by its mean token log-probability, DPO and KTO by the
// sum.
bool averagesLogps(PreferenceObjective objective);

// Log-probabilities of the scored tokens of sequences [N]: their sum and their number.
struct SequenceLogps {
    torch::Tensor sums;
    torch::Tensor counts;
};
// From per-target cross-entropies [N, T] (0 where the target is not scored) and the targets
// (-100 where not scored).
SequenceLogps sequenceLogps(const torch::Tensor &target_losses, const torch::Tensor &targets);

// What an objective makes of B pairs. Per pair [B]: the loss (its mean is the objective), the
// policy's log-probabilities as the objective uses them (summed or averaged), the implicit
// rewards; `loss` attached to the graph, the rest detached.
struct PreferenceTerms {
    torch::Tensor loss;
    torch::Tensor pair_losses;
    torch::Tensor chosen_logps;
    torch::Tensor rejected_logps;
    torch::Tensor chosen_rewards;
    torch::Tensor rejected_rewards;
    // KTO: the records are unpaired; per record [B] its log-probability (chosen_logps), reward
    // (chosen_rewards) and whether it is desirable; `kl` the step's KL estimate. The rejected_*
    // tensors stay undefined.
    torch::Tensor desirable;
    double kl = 0;
};
// `policy`: the chosen sequences' then the rejected ones' ([2B]); `reference` likewise
// (undefined when the objective needs none). `chosen_nll` [B] (orpo): each chosen sequence's
// mean next-token loss over all its tokens, the prompt's included, as TRL's ORPOTrainer
// computes it; undefined = over its completion only.
PreferenceTerms preferenceTerms(const PreferenceOptions &options, const SequenceLogps &policy,
                                const SequenceLogps &reference,
                                const torch::Tensor &chosen_nll = {});

// KTO (TRL's kto_trainer.py, loss_type "kto") on B records: `policy` and `reference` their
// summed log-probabilities [B], `desirable` [B] bool, `kl` the KL estimate z0 (>= 0, no
// gradient): a desirable record's loss is w_d (1 - sigmoid(beta (r - z0))), an undesirable
// one's w_u (1 - sigmoid(beta (z0 - r))), r the policy's log-ratio to the reference.
PreferenceTerms ktoTerms(const PreferenceOptions &options, const SequenceLogps &policy,
                         const SequenceLogps &reference, const torch::Tensor &desirable, double kl);

} // namespace headroom::train
