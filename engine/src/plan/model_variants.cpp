#include "plan/model_variants.h"

#include "plan/planner_request.h"
#include "plan/step_time.h"

#include <cmath>
#include <cstdio>

namespace headroom::plan {

namespace {

struct Change {
    std::string description;
    std::string key;
    std::string value;
};

std::string number(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

std::vector<Change> moeChanges(const Config &config) {
    const std::int64_t experts = config.integer("moe.experts");
    const std::int64_t top_k = config.integer("moe.top_k");
    const double capacity = config.real("moe.capacity_factor");
    const std::int64_t every = config.integer("moe.every");
    std::vector<Change> changes;
    const std::int64_t half = experts / 2;
    if (half >= 2 && half >= top_k) {
        changes.push_back({std::to_string(half) + " experts instead of " + std::to_string(experts),
                           "moe.experts", std::to_string(half)});
    }
    if (top_k > 1) {
        changes.push_back({"top-" + std::to_string(top_k - 1) + " routing instead of top-" +
                               std::to_string(top_k),
                           "moe.top_k", std::to_string(top_k - 1)});
    }
    if (capacity == 0 || capacity > 1) {
        changes.push_back(
            {"capacity factor 1 instead of " + (capacity == 0 ? "none" : number(capacity)),
             "moe.capacity_factor", "1"});
    }
    // model.params derives the depth; a fixed depth can take MoE in fewer blocks.
    if (config.integer("model.params") == 0 && every * 2 <= config.integer("model.layers")) {
        changes.push_back({"experts in every " + std::to_string(every * 2) +
                               " blocks instead of every " + std::to_string(every),
                           "moe.every", std::to_string(every * 2)});
    }
    return changes;
}

// Predicted seconds of a step at `config`, or its work in FLOPs without a calibration; 0 when
// the step is not modelled.
double stepCost(const Config &config, const ModelFacts &facts,
                const std::optional<SpeedCalibration> &calibration) {
    const std::optional<StepWork> work = stepWork(config, facts);
    if (!work) {
        return 0;
    }
    if (calibration) {
        const double seconds = predictStepSeconds(*work, *calibration, config.text("precision"));
        if (seconds > 0) {
            return seconds;
        }
    }
    return work->matmul_flops + work->attention_flops;
}

} // namespace

std::vector<PlanVariant> modelVariants(const Config &base,
                                       const std::vector<std::string> &plan_overrides,
                                       const ModelFacts &facts, double limit,
                                       const std::vector<MemoryHistoryRecord> &history,
                                       const std::optional<SpeedCalibration> &calibration) {
    Config planned = base;
    for (const std::string &assignment : plan_overrides) {
        planned.setAssignment(assignment);
    }
    std::vector<PlanVariant> variants;
    if (!planned.isLanguageModel() || !planned.text("model.base").empty() ||
        planned.integer("moe.experts") == 0) {
        return variants;
    }
    const double cost = stepCost(planned, facts, calibration);
    for (const Change &change : moeChanges(planned)) {
        Config config = planned;
        config.set(change.key, change.value); // each change keeps the moe.* keys consistent
        MemoryEstimate estimate = estimateMemory(config, facts);
        applyHistoryCorrection(estimate, history);
        PlanVariant variant;
        variant.change = change.description;
        variant.overrides = {change.key + "=" + change.value};
        variant.peak = estimate.peak;
        variant.parameters = estimate.parameters;
        variant.fits = limit == 0 || static_cast<double>(estimate.peak) <= limit;
        const double variant_cost = stepCost(config, facts, calibration);
        variant.relative_speed = cost > 0 && variant_cost > 0 ? cost / variant_cost : 0;
        variants.push_back(variant);
    }
    return variants;
}

} // namespace headroom::plan
