#pragma once

#include <headroom/config.h>
#include <headroom/project.h>

#include <optional>
#include <string>
#include <vector>

namespace headroom::train {

// The configuration a run trains with, and where it starts from.
struct RunPlan {
    Config config;
    std::optional<CheckpointRecord> resume_from; // the checkpoint to continue from
    std::int64_t resumed_run = 0;                // the run that wrote it
    std::string checkpoint_path;                 // absolute path of that checkpoint
};

// Builds the plan from the project, the request's overrides and, for resume, the latest
// checkpoint. Throws ConfigError (bad or forbidden override, nothing to resume) or
// ProjectError.
RunPlan planRun(Project &project, const std::vector<std::string> &overrides, bool resume);

} // namespace headroom::train
