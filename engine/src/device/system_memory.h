#pragma once

#include <cstdint>
#include <string>

namespace headroom::device {

struct SystemMemory {
    std::uint64_t total_bytes = 0;
    std::uint64_t available_bytes = 0;
};

// Physical memory of the machine, from the operating system.
SystemMemory readSystemMemory();

// "Intel(R) Xeon(R) ..." or an empty string when the OS does not say.
std::string readCpuModel();

int logicalCoreCount();

// Resident set size of this process, in bytes (0 where unknown).
std::uint64_t processResidentBytes();

// Highest resident set size this process has had, in bytes (0 where unknown).
std::uint64_t processPeakResidentBytes();

} // namespace headroom::device
