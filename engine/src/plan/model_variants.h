#pragma once

#include <headroom/plan.h>
#include <headroom/project.h>
#include <headroom/speed_calibration.h>

#include <optional>
#include <string>
#include <vector>

namespace headroom::plan {

// The model changes worth pricing for `base` with the plan's techniques and micro-batch
// (`plan_overrides`) applied: for a Mixture-of-Experts GPT trained from scratch, half the experts,
// one expert fewer per token, a capacity factor of 1 and MoE in every other block, each alone.
// `limit` is the budget less the margin (0: no budget).
// Empty for dense and pretrained models.
std::vector<PlanVariant> modelVariants(const Config &base,
                                       const std::vector<std::string> &plan_overrides,
                                       const ModelFacts &facts, double limit,
                                       const std::vector<MemoryHistoryRecord> &history,
                                       const std::optional<SpeedCalibration> &calibration);

} // namespace headroom::plan
