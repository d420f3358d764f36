#include "recipes/preference_objective.h"

#include <headroom/config.h>

#include <cmath>

namespace headroom::train {

std::optional<PreferenceOptions> preferenceOptions(const Config &config) {
    const std::string &name = config.text("train.objective");
    if (name == "sft" || name == "grpo") {
        return std::nullopt; // grpo: recipes/grpo_objective.h
    }
    PreferenceOptions options;
    options.objective = name == "dpo"     ? PreferenceObjective::Dpo
                        : name == "ipo"   ? PreferenceObjective::Ipo
                        : name == "simpo" ? PreferenceObjective::Simpo
                        : name == "kto"   ? PreferenceObjective::Kto
                                          : PreferenceObjective::Orpo;
    options.beta = config.real("pref.beta");
    options.label_smoothing = config.real("pref.label_smoothing");
    options.simpo_gamma = config.real("pref.simpo_gamma");
    options.orpo_lambda = config.real("pref.orpo_lambda");
    options.kto_desirable_weight = config.real("pref.kto_desirable_weight");
    options.kto_undesirable_weight = config.real("pref.kto_undesirable_weight");
    return options;
}

std::string objectiveName(PreferenceObjective objective) {
    switch (objective) {
    case PreferenceObjective::Dpo:
        return "dpo";
    case PreferenceObjective::Ipo:
        return "ipo";
    case PreferenceObjective::Simpo:
        return "simpo";
    case PreferenceObjective::Orpo:
        return "orpo";
    case PreferenceObjective::Kto:
        return "kto";
    }
    return "dpo";
}

bool needsReference(PreferenceObjective objective) {
    return objective == PreferenceObjective::Dpo || objective == PreferenceObjective::Ipo ||
           objective == PreferenceObjective::Kto;
}

bool averagesLogps(PreferenceObjective objective) {
    return objective != PreferenceObjective::Dpo && objective != PreferenceObjective::Kto;
}

SequenceLogps sequenceLogps(const torch::Tensor &target_losses, const torch::Tensor &targets) {
    return {-target_losses.to(torch::kFloat32).sum(1), targets.ne(-100).sum(1).to(torch::kFloat32)};
}

namespace {

// The chosen [B] and rejected [B] halves of per-sequence values [2B], as the objective scores
// them.
std::pair<torch::Tensor, torch::Tensor> pairHalves(const SequenceLogps &logps, bool average) {
    torch::Tensor values = logps.sums;
    if (average) {
        values = values / logps.counts.clamp_min(1);
    }
    const std::int64_t pairs = values.size(0) / 2;
    return {values.slice(0, 0, pairs), values.slice(0, pairs)};
}

// -log sigmoid(beta x) (1 - ls) - log sigmoid(-beta x) ls: the sigmoid loss with conservative
// label smoothing (DPO, SimPO).
torch::Tensor smoothedSigmoidLoss(const torch::Tensor &x, double beta, double smoothing) {
    return -torch::log_sigmoid(beta * x) * (1 - smoothing) -
           torch::log_sigmoid(-beta * x) * smoothing;
}

} // namespace

PreferenceTerms preferenceTerms(const PreferenceOptions &options, const SequenceLogps &policy,
                                const SequenceLogps &reference, const torch::Tensor &chosen_nll) {
    const bool average = averagesLogps(options.objective);
    const auto [chosen, rejected] = pairHalves(policy, average);
    const double beta = options.beta;
    PreferenceTerms terms;
    switch (options.objective) {
    case PreferenceObjective::Dpo:
    case PreferenceObjective::Ipo: {
        const auto [ref_chosen, ref_rejected] = pairHalves(reference, average);
        const torch::Tensor margin = (chosen - rejected) - (ref_chosen - ref_rejected);
        terms.pair_losses = options.objective == PreferenceObjective::Dpo
                                ? smoothedSigmoidLoss(margin, beta, options.label_smoothing)
                                : (margin - 1 / (2 * beta)).pow(2);
        terms.chosen_rewards = beta * (chosen - ref_chosen).detach();
        terms.rejected_rewards = beta * (rejected - ref_rejected).detach();
        break;
    }
    case PreferenceObjective::Simpo:
        terms.pair_losses = smoothedSigmoidLoss(chosen - rejected - options.simpo_gamma / beta,
                                                beta, options.label_smoothing);
        terms.chosen_rewards = beta * chosen.detach();
        terms.rejected_rewards = beta * rejected.detach();
        break;
    case PreferenceObjective::Kto:
        TORCH_CHECK(false, "KTO scores unpaired records: ktoTerms");
        break;
    case PreferenceObjective::Orpo: {
        // log odds(p) = log p - log(1 - p) of the mean token probability; the pair's loss is its
        // chosen sequence's negative log-likelihood minus lambda log sigmoid(log odds ratio).
        const torch::Tensor log_odds = (chosen - rejected) - (torch::log1p(-torch::exp(chosen)) -
                                                              torch::log1p(-torch::exp(rejected)));
        const torch::Tensor nll = chosen_nll.defined() ? chosen_nll : -chosen;
        terms.pair_losses = nll - options.orpo_lambda * torch::log_sigmoid(log_odds);
        terms.chosen_rewards = options.orpo_lambda * chosen.detach();
        terms.rejected_rewards = options.orpo_lambda * rejected.detach();
        break;
    }
    }
    terms.loss = terms.pair_losses.mean();
    terms.pair_losses = terms.pair_losses.detach();
    terms.chosen_logps = chosen.detach();
    terms.rejected_logps = rejected.detach();
    return terms;
}

PreferenceTerms ktoTerms(const PreferenceOptions &options, const SequenceLogps &policy,
                         const SequenceLogps &reference, const torch::Tensor &desirable,
                         double kl) {
    const double beta = options.beta;
    const torch::Tensor logratios = policy.sums - reference.sums;
    const torch::Tensor chosen_losses =
        options.kto_desirable_weight * (1 - torch::sigmoid(beta * (logratios - kl)));
    const torch::Tensor rejected_losses =
        options.kto_undesirable_weight * (1 - torch::sigmoid(beta * (kl - logratios)));
    PreferenceTerms terms;
    terms.pair_losses = torch::where(desirable, chosen_losses, rejected_losses);
    terms.loss = terms.pair_losses.mean();
    terms.pair_losses = terms.pair_losses.detach();
    terms.chosen_logps = policy.sums.detach();
    terms.chosen_rewards = beta * logratios.detach();
    terms.desirable = desirable;
    terms.kl = kl;
    return terms;
}

} // namespace headroom::train
