#pragma once

#include <filesystem>
#include <string>

namespace headroom::util {

// Flushes a written file (and, on POSIX, its folder entry) to the disk.
void syncFile(const std::string &path);
void syncDirectory(const std::string &path);

// Renames temp_path over final_path and syncs the folder, so a crash leaves either the old
// file or the complete new one. Throws std::runtime_error naming the files.
void commitFile(const std::string &temp_path, const std::string &final_path);

// Whether path names a regular file (false, not an exception, when it cannot be examined).
bool isRegularFile(const std::filesystem::path &path);

} // namespace headroom::util
