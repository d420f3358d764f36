#include "device/system_memory.h"

#include <fstream>
#include <sstream>
#include <thread>

#if defined(__APPLE__)
#include <mach/mach.h>
#include <sys/sysctl.h>
#include <sys/types.h>
#elif defined(_WIN32)
#define NOMINMAX
#include <psapi.h>
#include <windows.h>
#else
#include <unistd.h>
#endif

namespace headroom::device {

#if defined(__linux__)
namespace {
// Value of a "Key:   1234 kB" line of /proc/meminfo or /proc/self/status, in bytes.
std::uint64_t readKibibyteField(const char *path, const std::string &key) {
    std::ifstream file(path);
    std::string line;
    while (std::getline(file, line)) {
        if (line.compare(0, key.size(), key) == 0 && line.size() > key.size() &&
            line[key.size()] == ':') {
            std::istringstream fields(line.substr(key.size() + 1));
            std::uint64_t kib = 0;
            fields >> kib;
            return kib * 1024;
        }
    }
    return 0;
}
} // namespace
#endif

SystemMemory readSystemMemory() {
    SystemMemory memory;
#if defined(__linux__)
    memory.total_bytes = readKibibyteField("/proc/meminfo", "MemTotal");
    memory.available_bytes = readKibibyteField("/proc/meminfo", "MemAvailable");
#elif defined(__APPLE__)
    std::uint64_t total = 0;
    std::size_t size = sizeof total;
    if (sysctlbyname("hw.memsize", &total, &size, nullptr, 0) == 0) {
        memory.total_bytes = total;
    }
    vm_statistics64_data_t stats{};
    mach_msg_type_number_t count = HOST_VM_INFO64_COUNT;
    if (host_statistics64(mach_host_self(), HOST_VM_INFO64, reinterpret_cast<host_info64_t>(&stats),
                          &count) == KERN_SUCCESS) {
        const std::uint64_t page = static_cast<std::uint64_t>(vm_kernel_page_size);
        memory.available_bytes =
            (static_cast<std::uint64_t>(stats.free_count) + stats.inactive_count) * page;
    }
#elif defined(_WIN32)
    MEMORYSTATUSEX status{};
    status.dwLength = sizeof status;
    if (GlobalMemoryStatusEx(&status)) {
        memory.total_bytes = status.ullTotalPhys;
        memory.available_bytes = status.ullAvailPhys;
    }
#endif
    return memory;
}

std::string readCpuModel() {
#if defined(__linux__)
    std::ifstream file("/proc/cpuinfo");
    std::string line;
    while (std::getline(file, line)) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) {
                const auto start = line.find_first_not_of(" \t", colon + 1);
                return start == std::string::npos ? std::string() : line.substr(start);
            }
        }
    }
#elif defined(__APPLE__)
    char name[256] = {};
    std::size_t size = sizeof name;
    if (sysctlbyname("machdep.cpu.brand_string", name, &size, nullptr, 0) == 0) {
        return name;
    }
#endif
    return {};
}

int logicalCoreCount() {
    const unsigned count = std::thread::hardware_concurrency();
    return count == 0 ? 1 : static_cast<int>(count);
}

std::uint64_t processResidentBytes() {
#if defined(__linux__)
    return readKibibyteField("/proc/self/status", "VmRSS");
#elif defined(__APPLE__)
    mach_task_basic_info_data_t info{};
    mach_msg_type_number_t count = MACH_TASK_BASIC_INFO_COUNT;
    if (task_info(mach_task_self(), MACH_TASK_BASIC_INFO, reinterpret_cast<task_info_t>(&info),
                  &count) == KERN_SUCCESS) {
        return info.resident_size;
    }
    return 0;
#elif defined(_WIN32)
    PROCESS_MEMORY_COUNTERS counters{};
    if (GetProcessMemoryInfo(GetCurrentProcess(), &counters, sizeof counters)) {
        return counters.WorkingSetSize;
    }
    return 0;
#else
    return 0;
#endif
}

std::uint64_t processPeakResidentBytes() {
#if defined(__linux__)
    return readKibibyteField("/proc/self/status", "VmHWM");
#elif defined(_WIN32)
    PROCESS_MEMORY_COUNTERS counters{};
    if (GetProcessMemoryInfo(GetCurrentProcess(), &counters, sizeof counters)) {
        return counters.PeakWorkingSetSize;
    }
    return 0;
#else
    return processResidentBytes();
#endif
}

} // namespace headroom::device
