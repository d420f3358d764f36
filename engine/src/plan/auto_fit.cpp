#include <headroom/plan.h>

namespace headroom {

FitResult fitPlan(const PlanRequest &, const FitProgress &) {
    return {}; // placeholder until auto-fit lands
}

} // namespace headroom
