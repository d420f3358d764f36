#pragma once

#include "data/tabular_schema.h"

#include <headroom/plan.h>
#include <headroom/project.h>

namespace headroom::plan {

// The shapes the estimator needs, from what a run already has: the tokenizer's vocabulary
// (gpt) or the tabular schema.
ModelFacts gptFacts(std::int64_t vocab_size);
ModelFacts tabularFacts(const data::TabularSchema &schema);
// The same from a project without training or storing anything: the stored tokenizer or
// schema (a SentencePiece tokenizer not trained yet counts as tokenizer.vocab_size; a schema
// not stored yet is inferred from the data file).
ModelFacts storedModelFacts(const Config &config, const Project &project);

} // namespace headroom::plan
