#include "plan/preference_decision.h"

#include <headroom/units.h>

namespace headroom::plan {

std::optional<PlanDecision> preferenceReferenceDecision(const Config &config,
                                                        const ModelFacts &facts,
                                                        const std::vector<std::string> &overrides) {
    const std::string &objective = config.text("train.objective");
    if (objective == "kto") {
        return PlanDecision{"pref.precompute_reference", "0",
                            "KTO's KL term pairs each prompt with another completion of the "
                            "step: its reference runs live"};
    }
    if (objective != "dpo" && objective != "ipo") {
        return std::nullopt;
    }
    Config live = config;
    for (const std::string &assignment : overrides) {
        live.setAssignment(assignment);
    }
    Config precomputed = live;
    live.set("pref.precompute_reference", "0");
    precomputed.set("pref.precompute_reference", "1");
    std::string reason = "the reference's log-probabilities computed once before training: each "
                         "step skips the reference's forward pass (about a third of a step)";
    try {
        const std::uint64_t with_copy = estimateMemory(live, facts).peak;
        const std::uint64_t without = estimateMemory(precomputed, facts).peak;
        reason += with_copy > without
                      ? ", and the frozen reference copy's " + formatBytes(with_copy - without) +
                            " leave memory"
                      : "; with LoRA the reference (the base with its adapters off) costs no "
                        "memory either way";
    } catch (const ConfigError &) {
        return std::nullopt;
    }
    return PlanDecision{"pref.precompute_reference", "1", reason};
}

} // namespace headroom::plan
