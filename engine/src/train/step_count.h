#pragma once

#include "train/prepared_data.h"

#include <headroom/config.h>

#include <cstdint>
#include <string>

namespace headroom::train {

// Optimizer steps that make `epochs` passes over `rows` examples at `effective_batch` per step
// (rounded up, at least 1).
std::int64_t stepsForEpochs(double epochs, std::int64_t rows, std::int64_t effective_batch);

// The run's step count: train.steps, or derived from train.epochs and the training rows of the
// tabular schema (written back into train.steps, so the run's config says what it trains).
// Config::validate has refused train.epochs for data whose size in examples is unknown.
std::int64_t resolveTotalSteps(Config &config, const PreparedData &data);

// Why `train --steps N` cannot train N more steps from `current` when the run ends at `total`.
std::string tooManyStepsMessage(const Config &config, std::int64_t requested, std::int64_t current,
                                std::int64_t total);

} // namespace headroom::train
