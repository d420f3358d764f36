#include "train/evaluation.h"

#include "data/example_stream.h"
#include "memory/oom.h"

#include <cmath>
#include <limits>

namespace headroom::train {

namespace {

EvalTotals onePass(Recipe &recipe, data::ExampleStream &stream, std::int64_t limit,
                   std::size_t micro_batch, const std::function<void()> &before_batch) {
    EvalTotals totals;
    stream.reset();
    recipe.beginEvaluation();
    std::vector<data::Example> examples;
    data::Example example;
    std::int64_t taken = 0;
    bool more = true;
    while (more && taken < limit) {
        examples.clear();
        while (examples.size() < micro_batch && taken < limit && (more = stream.next(example))) {
            examples.push_back(std::move(example));
            ++taken;
        }
        if (examples.empty()) {
            break;
        }
        ExampleBatch batch;
        for (const data::Example &item : examples) {
            batch.push_back(&item);
        }
        if (before_batch) {
            before_batch();
        }
        recipe.evaluate(batch, totals);
    }
    recipe.finishEvaluation(totals);
    return totals;
}

} // namespace

EvaluationOutcome evaluateSplit(Recipe &recipe, data::ExampleStream &stream, std::int64_t limit,
                                std::int64_t micro_batch,
                                const std::function<void()> &before_batch) {
    EvaluationOutcome outcome;
    outcome.micro_batch = micro_batch;
    const std::shared_ptr<torch::nn::Module> module = recipe.module();
    module->eval();
    torch::NoGradGuard no_grad;
    for (;;) {
        try {
            outcome.totals = onePass(recipe, stream, limit,
                                     static_cast<std::size_t>(outcome.micro_batch), before_batch);
            break;
        } catch (const std::exception &error) {
            if (!memory::isOutOfMemory(error) || outcome.micro_batch <= 1) {
                module->train();
                throw;
            }
            outcome.micro_batch = std::max<std::int64_t>(1, outcome.micro_batch / 2);
            ++outcome.oom_backoffs;
        }
    }
    module->train();
    return outcome;
}

EvalMetrics evalMetrics(const EvalTotals &totals, const Recipe &recipe, std::int64_t step) {
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    EvalMetrics metrics;
    metrics.step = step;
    metrics.examples = totals.examples;
    const auto count = static_cast<double>(totals.examples);
    metrics.loss = totals.loss_sum / count;
    metrics.accuracy = recipe.reportsAccuracy() ? totals.correct / count : kNaN;
    metrics.rmse = recipe.reportsRmse() ? std::sqrt(totals.squared_error / count) : kNaN;
    metrics.r2 = kNaN;
    metrics.mrr_at_10 = totals.mrr_at_10;
    metrics.recall_at_100 = totals.recall_at_100;
    if (recipe.expandsStep()) {
        metrics.reward = -metrics.loss; // online RL: the loss is minus the mean reward
    }
    if (recipe.reportsRmse()) {
        // Squared deviation of the targets from their mean: sum y^2 - (sum y)^2 / n.
        const double spread = totals.target_squares - totals.target_sum * totals.target_sum / count;
        if (spread > 0) {
            metrics.r2 = 1.0 - totals.squared_error / spread;
        }
    }
    return metrics;
}

} // namespace headroom::train
