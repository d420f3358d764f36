#pragma once

#include "data/tabular_schema.h"

#include <headroom/config.h>
#include <headroom/plan.h>

#include <set>
#include <string>
#include <vector>

namespace headroom::plan {

// The training settings a tabular project starts with, chosen from the size of its data
// (training rows, classes): batch, learning rate, epochs, a validation pass over the whole split
// every epoch, early stopping and a full shuffle. Each with the reason, for `new` and the wizard.
// Keys in `given` are the user's and are left out; what depends on them (steps per epoch on the
// batch) is computed from `config`. A given train.steps also leaves out train.epochs and early
// stopping: the user chose the run's length.
std::vector<PlanDecision> tabularDefaults(const data::TabularSchema &schema, const Config &config,
                                          const std::set<std::string> &given);

} // namespace headroom::plan
