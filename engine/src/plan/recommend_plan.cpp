// The public planner entry points: the hardware profile a request plans for (a catalogue
// profile, or what its config names), this machine's speed calibration, then the chooser.
#include "plan/planner_request.h"

#include <headroom/devices.h>
#include <headroom/plan.h>
#include <headroom/speed_calibration.h>

namespace headroom {

Plan recommendPlan(const Config &config, const ModelFacts &facts, const HardwareProfile &profile,
                   const std::optional<SpeedCalibration> &calibration) {
    return plan::choosePlan(config, facts, profile, {}, calibration);
}

Plan recommendPlan(const Config &config, const ModelFacts &facts, const HardwareProfile &profile) {
    return plan::choosePlan(config, facts, profile, {},
                            profile.detected ? cachedSpeedCalibration(profile.device)
                                             : std::nullopt);
}

Plan recommendPlan(const PlanRequest &request) {
    const plan::PlannerInput input = plan::loadPlannerInput(request);
    HardwareProfile profile = input.profile;
    if (!input.has_profile) {
        // Planning for what the config names: its device kind and budget.
        const std::string device = input.device.substr(0, input.device.find(':'));
        profile.kind = device == "cuda" ? ProfileKind::Cuda
                                        : (device == "mps" ? ProfileKind::Mps : ProfileKind::Cpu);
        profile.device = input.config.text("device");
        profile.budget_bytes = input.config.bytes("memory.budget");
        profile.bf16 = profile.kind != ProfileKind::Mps;
        profile.fp16 = profile.kind == ProfileKind::Cuda;
        profile.label = "as configured (" + input.device + ")";
        if (profile.kind == ProfileKind::Cuda) {
            // bf16 only where this GPU has it; a GPU this machine lacks keeps the assumption.
            for (const HardwareProfile &detected : detectedProfiles(detectDevices())) {
                if (detected.device == input.device) {
                    profile.bf16 = detected.bf16;
                }
            }
        }
    }
    // Only this machine's devices have a calibration; a catalogue profile keeps the constants.
    const bool this_machine = !input.has_profile || profile.detected;
    Plan plan =
        plan::choosePlan(input.config, input.facts, profile, input.history,
                         this_machine ? cachedSpeedCalibration(input.device) : std::nullopt);
    if (input.has_profile) {
        plan.overrides.insert(plan.overrides.begin(),
                              {"device=" + input.config.text("device"),
                               "memory.budget=" + input.config.text("memory.budget")});
    }
    return plan;
}

} // namespace headroom
