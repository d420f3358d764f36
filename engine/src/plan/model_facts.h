#pragma once

#include "data/tabular_schema.h"

#include <headroom/plan.h>

namespace headroom::plan {

// The shapes the estimator needs, from what a run already has: the tokenizer's vocabulary
// (gpt) or the tabular schema.
ModelFacts gptFacts(std::int64_t vocab_size);
ModelFacts tabularFacts(const data::TabularSchema &schema);

} // namespace headroom::plan
