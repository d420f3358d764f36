#pragma once

#include <headroom/project.h>

#include <cstdint>

namespace headroom::workflow {

// The run with this id; an InputError that says how to list the runs when there is none.
RunRecord requireRun(const Project &project, std::int64_t run_id);

} // namespace headroom::workflow
