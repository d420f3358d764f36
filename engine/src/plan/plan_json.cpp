#include <headroom/plan.h>

#include <nlohmann/json.hpp>

namespace headroom {

namespace {

using nlohmann::json;

json profileJson(const HardwareProfile &profile) {
    return {{"id", profile.id},
            {"label", profile.label},
            {"kind", toString(profile.kind)},
            {"device", profile.device},
            {"memory_bytes", profile.memory_bytes},
            {"budget_bytes", profile.budget_bytes},
            {"bf16", profile.bf16},
            {"fp16", profile.fp16},
            {"detected", profile.detected},
            {"note", profile.note}};
}

json estimateJson(const MemoryEstimate &estimate) {
    return {{"recipe", estimate.recipe},
            {"model", estimate.model},
            {"device", estimate.device},
            {"techniques", estimate.techniques},
            {"parameters", estimate.parameters},
            {"trainable", estimate.trainable},
            {"micro_batch", estimate.micro_batch},
            {"accumulation", estimate.accumulation},
            {"breakdown",
             {{"weights", estimate.weights},
              {"gradients", estimate.gradients},
              {"optimizer", estimate.optimizer},
              {"activations", estimate.activations},
              {"overhead", estimate.overhead}}},
            {"host_bytes", estimate.host_bytes},
            {"model_peak", estimate.model_peak},
            {"correction", estimate.correction},
            {"history_samples", estimate.history_samples},
            {"peak", estimate.peak},
            {"budget", estimate.budget},
            {"fits", estimate.fits},
            {"notes", estimate.notes}};
}

json alternativeJson(const PlanAlternative &alternative) {
    return {{"techniques", alternative.techniques},
            {"micro_batch", alternative.micro_batch},
            {"accumulation", alternative.accumulation},
            {"peak", alternative.peak},
            {"relative_speed", alternative.relative_speed},
            {"step_seconds", alternative.step_seconds},
            {"fits", alternative.fits},
            {"pareto", alternative.pareto},
            {"overrides", alternative.overrides}};
}

json variantJson(const PlanVariant &variant) {
    return {{"change", variant.change},
            {"overrides", variant.overrides},
            {"peak", variant.peak},
            {"parameters", variant.parameters},
            {"relative_speed", variant.relative_speed},
            {"fits", variant.fits}};
}

json planJson(const Plan &plan) {
    json decisions = json::array();
    for (const PlanDecision &decision : plan.decisions) {
        decisions.push_back({{"setting", decision.setting},
                             {"value", decision.value},
                             {"reason", decision.reason}});
    }
    json alternatives = json::array();
    for (const PlanAlternative &alternative : plan.alternatives) {
        alternatives.push_back(alternativeJson(alternative));
    }
    json variants = json::array();
    for (const PlanVariant &variant : plan.variants) {
        variants.push_back(variantJson(variant));
    }
    return {{"feasible", plan.feasible},
            {"summary", plan.summary},
            {"profile", profileJson(plan.profile)},
            {"safety_margin", plan.safety_margin},
            {"overrides", plan.overrides},
            {"decisions", std::move(decisions)},
            {"estimate", estimateJson(plan.estimate)},
            {"alternatives", std::move(alternatives)},
            {"variants", std::move(variants)},
            {"speed",
             {{"calibrated", plan.speed_calibrated},
              {"step_seconds", plan.step_seconds},
              {"note", plan.speed_note}}}};
}

json fitJson(const FitResult &result) {
    json probes = json::array();
    for (const FitProbe &probe : result.probes) {
        probes.push_back({{"micro_batch", probe.micro_batch},
                          {"fits", probe.fits},
                          {"peak", probe.peak},
                          {"error", probe.error}});
    }
    return {{"plan", planJson(result.plan)},
            {"probes", std::move(probes)},
            {"largest_fitting", result.largest_fitting},
            {"micro_batch", result.micro_batch},
            {"accumulation", result.accumulation},
            {"predicted_peak", result.predicted_peak},
            {"measured_peak", result.measured_peak},
            {"overrides", result.overrides},
            {"stored", result.stored},
            {"message", result.message}};
}

// Non-finite numbers become null and invalid UTF-8 is replaced rather than thrown about.
std::string dump(const json &value, int indent) {
    return value.dump(indent, ' ', false, json::error_handler_t::replace);
}

} // namespace

std::string toJson(const HardwareProfile &profile, int indent) {
    return dump(profileJson(profile), indent);
}

std::string toJson(const MemoryEstimate &estimate, int indent) {
    return dump(estimateJson(estimate), indent);
}

std::string toJson(const Plan &plan, int indent) {
    return dump(planJson(plan), indent);
}

std::string toJson(const FitResult &result, int indent) {
    return dump(fitJson(result), indent);
}

} // namespace headroom
