#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <unistd.h>

// The readers take file paths, so every input is written to a scratch file first, in memory
// (/dev/shm) when there is one.
inline std::string fuzzScratchPath(const char *name) {
    const char *directory = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return std::string(directory) + "/headroom-fuzz-" + std::to_string(getpid()) + "-" + name;
}

inline void writeFuzzFile(const std::string &path, const std::uint8_t *data, std::size_t size) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
}
