#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

struct CpuInfo {
    std::string model;
    int logical_cores = 0;
    int torch_threads = 0;
    std::uint64_t total_bytes = 0;
    std::uint64_t available_bytes = 0;
};

struct CudaDeviceInfo {
    int index = 0;
    std::string name;
    std::uint64_t total_bytes = 0;
    std::uint64_t free_bytes = 0;
    int compute_major = 0;
    int compute_minor = 0;
    bool supports_bf16 = false;
};

struct MpsInfo {
    bool built = false;
    bool available = false;
    std::uint64_t unified_memory_bytes = 0;
};

struct DeviceReport {
    std::string torch_version;
    CpuInfo cpu;
    bool cuda_built = false;
    std::vector<CudaDeviceInfo> cuda;
    MpsInfo mps;
};

// Reads the machine and the LibTorch build; nothing is hard-coded.
DeviceReport detectDevices();

// The device `device=auto` resolves to: "cuda:0", "mps" or "cpu".
std::string preferredDevice(const DeviceReport &report);

// One line per device, for people.
std::vector<std::string> describeDevices(const DeviceReport &report);

// A short label for status bars: "CPU · 2 cores · 23.4 GiB".
std::string shortDeviceLabel(const DeviceReport &report);

// The report as one JSON object (the `devices --json` output).
std::string deviceReportToJson(const DeviceReport &report, int indent = -1);

} // namespace headroom
