// estimateMemory for a project: its config, the request's overrides and profile, the model's
// shapes from its stored tokenizer or schema, and the correction from its memory history.
#include "device/resolve_device.h"
#include "plan/model_facts.h"
#include "plan/planner_request.h"
#include "train/prepared_data.h"

#include <headroom/plan.h>
#include <headroom/project.h>

namespace headroom {

namespace plan {

PlannerInput loadPlannerInput(const PlanRequest &request) {
    Project project = Project::openForReading(request.project_path);
    PlannerInput input;
    input.config = Config::fromJson(project.configJson());
    for (const std::string &assignment : request.overrides) {
        input.config.setAssignment(assignment);
    }
    if (!request.profile.empty()) {
        input.profile = findHardwareProfile(request.profile, detectDevices());
        applyHardwareProfile(input.profile, input.config);
        input.has_profile = true;
    }
    input.config.validate();

    const std::string recipe = input.config.text("recipe");
    input.facts = storedModelFacts(input.config, project);
    input.device = input.config.text("device");
    if (input.device == "auto") {
        input.device = device::resolveDevice(input.device).str();
    } else if (input.device == "cuda") {
        input.device = "cuda:0"; // as the trainer names it
    }
    input.history = project.memoryHistory(input.device, recipe, kHistorySamples);
    return input;
}

} // namespace plan

MemoryEstimate estimateMemory(const PlanRequest &request) {
    const plan::PlannerInput input = plan::loadPlannerInput(request);
    MemoryEstimate estimate = estimateMemory(input.config, input.facts);
    plan::applyHistoryCorrection(estimate, input.history);
    return estimate;
}

} // namespace headroom
