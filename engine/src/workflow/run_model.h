#pragma once

#include "recipes/recipe.h"
#include "train/prepared_data.h"

#include <headroom/config.h>
#include <headroom/project.h>

#include <cstdint>
#include <memory>
#include <string>

namespace headroom::workflow {

// A run's result weights (or a pretrained project's base as imported) in a
// model on the CPU, in eval mode, with the config and data preparation they
// were trained with.
struct RunModel {
    std::int64_t run_id = 0; // 0: the imported base, no run
    std::int64_t step = 0;
    Config config;
    train::PreparedData prepared;
    std::unique_ptr<train::Recipe> recipe;
};

// run_id > 0: that run (InputError without a checkpoint). 0: the newest run
// with a checkpoint, else the base of a pretrained project. -1: the base. A gpt
// project without a model.base and without runs is an InputError that says to
// train first.
RunModel loadRunModel(Project &project, std::int64_t run_id);

} // namespace headroom::workflow
