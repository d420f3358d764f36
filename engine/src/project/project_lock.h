#pragma once

#include <memory>
#include <string>

namespace headroom::project {

// Keeps a second process from opening a project for writing while one has it open: an
// advisory flock() on the sibling file `PATH-lock`, which also names the holder (pid, host,
// since when) for the message the other process shows. The kernel drops the lock when its
// process ends, even by SIGKILL, so a leftover lock file never blocks anyone, and whoever
// holds the lock knows that runs still marked "running" were abandoned. Opening the same
// project several times in one process shares one lock (the trainer and the UI's views).
class ProjectLock {
public:
    // Throws ProjectLockedError when another process holds the lock; ProjectError when the
    // lock file cannot be created (a read-only folder, no permission), naming the cause.
    static std::shared_ptr<ProjectLock> acquire(const std::string &project_path);

    ProjectLock(const ProjectLock &) = delete;
    ProjectLock &operator=(const ProjectLock &) = delete;
    ~ProjectLock();

private:
    explicit ProjectLock(std::string key) : key_(std::move(key)) {}
    std::string key_; // the project's canonical path: the in-process registry's key
};

// `PATH-lock`, next to SQLite's own `PATH-wal` and `PATH-shm`.
std::string lockFilePath(const std::string &project_path);

} // namespace headroom::project
