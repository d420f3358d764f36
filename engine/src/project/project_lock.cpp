#include "project/project_lock.h"

#include "project/timestamps.h"

#include <headroom/project.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <mutex>
#include <sys/file.h>
#include <unistd.h>

namespace headroom::project {

namespace {

// One descriptor per project per process: flock() locks of two descriptors of the same file
// conflict even inside one process, so every Project of this process shares the entry.
struct Held {
    int fd = -1;
    int users = 0;
};

std::mutex &registryMutex() {
    static std::mutex mutex;
    return mutex;
}

std::map<std::string, Held> &registry() {
    static std::map<std::string, Held> held;
    return held;
}

std::string canonicalKey(const std::string &path) {
    std::error_code error;
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(path, error);
    return error ? std::filesystem::absolute(path).lexically_normal().string() : canonical.string();
}

std::string hostName() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) {
        return "this computer";
    }
    return name;
}

std::string readHolder(int fd) {
    char text[512] = {};
    const ssize_t read = pread(fd, text, sizeof text - 1, 0);
    std::string holder = read > 0 ? std::string(text, static_cast<std::size_t>(read)) : "";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0')) {
        holder.pop_back();
    }
    for (char &c : holder) {
        if (static_cast<unsigned char>(c) < 0x20) {
            c = ' '; // the file is only informative; keep the message on one line
        }
    }
    return holder;
}

void writeHolder(int fd) {
    const std::string holder = "pid " + std::to_string(getpid()) + " on " + hostName() + " since " +
                               isoTimestampNow() + "\n";
    // Informative only: a failure to write it must not stop the project from opening.
    if (ftruncate(fd, 0) == 0 && pwrite(fd, holder.data(), holder.size(), 0) < 0) {
        return;
    }
}

} // namespace

std::string lockFilePath(const std::string &project_path) {
    return project_path + "-lock";
}

std::shared_ptr<ProjectLock> ProjectLock::acquire(const std::string &project_path) {
    const std::string key = canonicalKey(project_path);
    std::lock_guard<std::mutex> guard(registryMutex());
    Held &held = registry()[key];
    if (held.users == 0) {
        const std::string lock_path = lockFilePath(project_path);
        const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            const int error = errno;
            registry().erase(key);
            throw ProjectError("project '" + project_path +
                               "' cannot be opened for writing: cannot create its lock file '" +
                               lock_path + "': " + std::strerror(error) +
                               "; open it read-only to look at it");
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int error = errno;
            const std::string holder = readHolder(fd);
            ::close(fd);
            registry().erase(key);
            if (error == EWOULDBLOCK) {
                throw ProjectLockedError("project '" + project_path +
                                         "' is open in another process" +
                                         (holder.empty() ? std::string() : " (" + holder + ")") +
                                         ": close it there, or open it read-only to look at it");
            }
            throw ProjectError("project '" + project_path + "': cannot lock '" + lock_path +
                               "': " + std::strerror(error));
        }
        writeHolder(fd);
        held.fd = fd;
    }
    ++held.users;
    return std::shared_ptr<ProjectLock>(new ProjectLock(key));
}

ProjectLock::~ProjectLock() {
    std::lock_guard<std::mutex> guard(registryMutex());
    const auto found = registry().find(key_);
    if (found == registry().end() || --found->second.users > 0) {
        return;
    }
    // The file stays: removing it would race with a process that has just opened it.
    ::close(found->second.fd);
    registry().erase(found);
}

} // namespace headroom::project
