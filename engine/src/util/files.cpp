#include "util/files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#if !defined(_WIN32)
#include <fcntl.h>
#include <unistd.h>
#endif

namespace headroom::util {

namespace {
#if !defined(_WIN32)
void syncPath(const std::string &path, int flags) {
    const int descriptor = ::open(path.c_str(), flags);
    if (descriptor < 0) {
        throw std::runtime_error(path + ": cannot open to sync: " + std::strerror(errno));
    }
    const int result = ::fsync(descriptor);
    const int error = errno;
    ::close(descriptor);
    if (result != 0) {
        throw std::runtime_error(path + ": sync failed: " + std::strerror(error));
    }
}
#endif
} // namespace

void syncFile(const std::string &path) {
#if !defined(_WIN32)
    syncPath(path, O_RDONLY);
#else
    (void)path;
#endif
}

void syncDirectory(const std::string &path) {
#if !defined(_WIN32)
    syncPath(path, O_RDONLY | O_DIRECTORY);
#else
    (void)path;
#endif
}

void commitFile(const std::string &temp_path, const std::string &final_path) {
    syncFile(temp_path);
    std::error_code error;
    std::filesystem::rename(temp_path, final_path, error);
    if (error) {
        throw std::runtime_error("cannot rename " + temp_path + " to " + final_path + ": " +
                                 error.message());
    }
    const std::filesystem::path folder = std::filesystem::path(final_path).parent_path();
    syncDirectory(folder.empty() ? std::string(".") : folder.string());
}

bool isRegularFile(const std::filesystem::path &path) {
    std::error_code error;
    return std::filesystem::is_regular_file(path, error);
}

} // namespace headroom::util
