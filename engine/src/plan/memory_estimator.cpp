#include <headroom/plan.h>

namespace headroom {

MemoryEstimate estimateMemory(const Config &, const ModelFacts &) {
    return {}; // placeholder until the estimator lands
}

MemoryEstimate estimateMemory(const PlanRequest &) {
    return {};
}

} // namespace headroom
