// pref.precompute_reference: the reference model's log-probabilities of every preference pair,
// computed once before training and kept in the project, so the run computes no reference.
#pragma once

#include "recipes/recipe.h"
#include "train/prepared_data.h"

#include <functional>
#include <memory>
#include <string>

namespace headroom {
class Config;
class Project;
} // namespace headroom

namespace headroom::train {

// The table for this data, base and settings: from the project when an earlier run stored it
// whole, else computed with the recipe's reference over the training split (one epoch, file
// order) and the validation split in micro-batches of `micro_batch` pairs. With `store` the
// pass saves what it has every 2048 pairs and the whole table at the end; a pass that finds a
// partial table computes only the pairs it lacks. `stop` is polled between micro-batches: a
// stopped pass saves what it has and returns nullptr.
std::shared_ptr<const ReferenceTable>
precomputedReference(Recipe &recipe, const PreparedData &data, const Config &config,
                     Project &project, bool store, std::int64_t micro_batch,
                     const std::function<void(const std::string &)> &progress,
                     const std::function<bool()> &stop);

} // namespace headroom::train
