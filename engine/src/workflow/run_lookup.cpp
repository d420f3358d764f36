#include "workflow/run_lookup.h"

#include <headroom/config.h>

#include <string>

namespace headroom::workflow {

RunRecord requireRun(const Project &project, std::int64_t run_id) {
    const std::optional<RunRecord> run = project.run(run_id);
    if (!run) {
        throw InputError("run " + std::to_string(run_id) + " not found in " + project.path() +
                         "; `headroom-cli runs " + project.path() + "` lists the runs");
    }
    return *run;
}

} // namespace headroom::workflow
