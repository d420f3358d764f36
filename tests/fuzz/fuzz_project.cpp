// The project loader on untrusted project files: open (with its checks, the migration of an
// older schema and the lock), then read everything a user can look at. Anything but a
// ProjectError is a finding.
#include "fuzz_support.h"

#include <headroom/project.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace {

void removeScratch(const std::string &path) {
    for (const char *suffix : {"", "-wal", "-shm", "-journal", "-lock", ".bak-v1", ".bak-v1.tmp"}) {
        std::remove((path + suffix).c_str());
    }
}

void readEverything(const headroom::Project &project) {
    project.configJson();
    project.blob("tokenizer");
    for (const headroom::RunRecord &run : project.runs()) {
        project.metrics(run.id);
        project.evaluations(run.id);
        project.events(run.id);
        for (const headroom::CheckpointRecord &checkpoint : project.checkpoints(run.id)) {
            try {
                project.resolveDataPath(checkpoint.path);
            } catch (const headroom::ProjectError &) {
            }
        }
        project.latestCheckpoint(run.id);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    static const std::string path = fuzzScratchPath("project.headroom");
    removeScratch(path);
    writeFuzzFile(path, data, size);
    try {
        const headroom::Project project = headroom::Project::openReadOnly(path);
        readEverything(project);
    } catch (const headroom::ProjectError &) {
    }
    try {
        headroom::Project project = headroom::Project::open(path);
        readEverything(project);
        project.markAbandonedRunsInterrupted();
    } catch (const headroom::ProjectError &) {
    }
    removeScratch(path);
    return 0;
}
