#include "train/step_count.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace headroom::train {

std::int64_t stepsForEpochs(double epochs, std::int64_t rows, std::int64_t effective_batch) {
    const double steps = std::ceil(epochs * static_cast<double>(rows) /
                                   static_cast<double>(std::max<std::int64_t>(1, effective_batch)));
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::min(steps, 1e9)));
}

std::int64_t resolveTotalSteps(Config &config, const PreparedData &data) {
    const double epochs = config.real("train.epochs");
    if (epochs <= 0) {
        return config.integer("train.steps");
    }
    // Config::validate refuses train.epochs for recipes without a row count.
    if (!data.schema) {
        throw std::logic_error("train.epochs reached a run without a tabular schema");
    }
    const std::int64_t effective_batch =
        config.integer("train.micro_batch") * config.integer("train.accumulation");
    const std::int64_t steps = stepsForEpochs(epochs, data.schema->train_rows, effective_batch);
    config.set("train.steps", std::to_string(steps));
    return steps;
}

std::string tooManyStepsMessage(const Config &config, std::int64_t requested, std::int64_t current,
                                std::int64_t total) {
    const std::string from_epochs = config.real("train.epochs") > 0
                                        ? " (from train.epochs=" + config.text("train.epochs") + ")"
                                        : "";
    const std::string setting = config.real("train.epochs") > 0 ? "train.epochs" : "train.steps";
    const std::int64_t left = total - current;
    const std::string where = current > 0 ? "the run is at step " + std::to_string(current) +
                                                " of " + std::to_string(total) + ", so " +
                                                std::to_string(left) + " remain"
                                          : "the run has " + std::to_string(total) + " steps";
    return "--steps " + std::to_string(requested) +
           " asks for more steps than the run has: " + where +
           " (train.steps=" + std::to_string(total) + from_epochs +
           ", where the learning-rate schedule ends). Give --steps " + std::to_string(left) +
           " or less, or make the run longer with --set " + setting + "=N";
}

} // namespace headroom::train
