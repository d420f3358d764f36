#pragma once

#include <headroom/plan.h>
#include <headroom/project.h>
#include <headroom/speed_calibration.h>

#include <optional>
#include <string>
#include <vector>

namespace headroom::plan {

// Measured/predicted ratios of the newest runs and probes on the same device and recipe
// correct later estimates; one odd run cannot move an estimate by more than these bounds.
constexpr int kHistorySamples = 20;
constexpr double kMinCorrection = 0.5;
constexpr double kMaxCorrection = 2.0;

// What a planner request resolves to: the project's config with the overrides and profile
// applied, the model's shapes, the device, and that device's memory history.
struct PlannerInput {
    Config config;
    ModelFacts facts;
    HardwareProfile profile; // has_profile: planned for; else derived from the config
    bool has_profile = false;
    std::string device; // resolved: "cpu", "cuda:0", "mps"
    std::vector<MemoryHistoryRecord> history;
};

// Opens the project read-only. Throws ConfigError (overrides, profile), ProjectError.
PlannerInput loadPlannerInput(const PlanRequest &request);

// Scales estimate.peak by the median measured/predicted ratio of `history` (bounded) and
// records how many samples it came from.
void applyHistoryCorrection(MemoryEstimate &estimate,
                            const std::vector<MemoryHistoryRecord> &history);

// recommendPlan with every option's estimate corrected by `history` before it is judged.
// Speeds from `calibration` when given.
Plan choosePlan(const Config &config, const ModelFacts &facts, const HardwareProfile &profile,
                const std::vector<MemoryHistoryRecord> &history,
                const std::optional<SpeedCalibration> &calibration = std::nullopt);

} // namespace headroom::plan
