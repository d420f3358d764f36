#pragma once

#include "recipes/recipe.h"

#include <headroom/metrics.h>

#include <cstdint>
#include <functional>

namespace headroom::data {
class ExampleStream;
}

namespace headroom::train {

struct EvaluationOutcome {
    EvalTotals totals;
    std::int64_t micro_batch = 0; // the batch size the pass ended with
    int oom_backoffs = 0;
};

// One validation pass over the first `limit` examples of the stream, in batches of
// `micro_batch`. On out-of-memory it halves its own batch (never the training one) and starts
// the pass again; at batch 1 the error propagates. `before_batch` runs before each batch (fault
// injection).
EvaluationOutcome evaluateSplit(Recipe &recipe, data::ExampleStream &stream, std::int64_t limit,
                                std::int64_t micro_batch,
                                const std::function<void()> &before_batch = {});

// The figures of a pass: mean loss, accuracy (classification), RMSE and R^2 (regression); NaN
// where the recipe does not report a figure. totals.examples must be above 0.
EvalMetrics evalMetrics(const EvalTotals &totals, const Recipe &recipe, std::int64_t step);

} // namespace headroom::train
