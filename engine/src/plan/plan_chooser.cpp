#include <headroom/plan.h>

namespace headroom {

Plan recommendPlan(const Config &, const ModelFacts &, const HardwareProfile &) {
    return {}; // placeholder until the plan chooser lands
}

Plan recommendPlan(const PlanRequest &) {
    return {};
}

} // namespace headroom
