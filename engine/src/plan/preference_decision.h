// The plan's word on a preference objective's reference model (pref.precompute_reference).
#pragma once

#include <headroom/plan.h>

#include <optional>
#include <string>
#include <vector>

namespace headroom::plan {

// For dpo and ipo: compute the reference's log-probabilities once before training (each step
// skips the reference's forward pass, and a full fine-tune's frozen copy leaves memory: its bytes
// are priced with `overrides`, the chosen plan's techniques); for kto: keep it live (its KL term
// needs it). Nothing for other objectives.
std::optional<PlanDecision> preferenceReferenceDecision(const Config &config,
                                                        const ModelFacts &facts,
                                                        const std::vector<std::string> &overrides);

} // namespace headroom::plan
