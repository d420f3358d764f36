#include "compat/torch_compat.h"
#include "device/system_memory.h"

#include <headroom/devices.h>
#include <headroom/units.h>

#include <ATen/Parallel.h>

#include <nlohmann/json.hpp>

namespace headroom {

DeviceReport detectDevices() {
    DeviceReport report;
    report.torch_version = compat::torchVersion();

    const device::SystemMemory memory = device::readSystemMemory();
    report.cpu.model = device::readCpuModel();
    report.cpu.logical_cores = device::logicalCoreCount();
    report.cpu.torch_threads = at::get_num_threads();
    report.cpu.total_bytes = memory.total_bytes;
    report.cpu.available_bytes = memory.available_bytes;

    report.cuda_built = compat::cudaBuilt();
    report.cuda = compat::queryCudaDevices();
    report.mps = compat::queryMps(memory.total_bytes);
    return report;
}

std::string preferredDevice(const DeviceReport &report) {
    if (!report.cuda.empty()) {
        return "cuda:" + std::to_string(report.cuda.front().index);
    }
    if (report.mps.available) {
        return "mps";
    }
    return "cpu";
}

std::vector<std::string> describeDevices(const DeviceReport &report) {
    std::vector<std::string> lines;
    const CpuInfo &cpu = report.cpu;
    std::string cpu_line = "cpu      ";
    cpu_line += cpu.model.empty() ? std::string("CPU") : cpu.model;
    cpu_line += " · " + std::to_string(cpu.logical_cores) + " cores (LibTorch uses " +
                std::to_string(cpu.torch_threads) + ") · " + formatBytes(cpu.total_bytes) +
                " RAM, " + formatBytes(cpu.available_bytes) + " available";
    lines.push_back(cpu_line);

    if (!report.cuda_built) {
        lines.push_back("cuda     not in this LibTorch build (CPU-only)");
    } else if (report.cuda.empty()) {
        lines.push_back("cuda     built in, but no CUDA device is visible");
    }
    for (const CudaDeviceInfo &gpu : report.cuda) {
        lines.push_back("cuda:" + std::to_string(gpu.index) + "   " + gpu.name + " · " +
                        formatBytes(gpu.total_bytes) + ", " + formatBytes(gpu.free_bytes) +
                        " free · compute " + std::to_string(gpu.compute_major) + "." +
                        std::to_string(gpu.compute_minor) + (gpu.supports_bf16 ? " · bf16" : ""));
    }

    if (report.mps.available) {
        lines.push_back("mps      Apple GPU · " + formatBytes(report.mps.unified_memory_bytes) +
                        " unified memory");
    } else if (report.mps.built) {
        lines.push_back("mps      built in, but not available on this machine");
    } else {
        lines.push_back("mps      not in this LibTorch build");
    }
    lines.push_back("LibTorch " + report.torch_version +
                    " · auto device: " + preferredDevice(report));
    return lines;
}

std::string shortDeviceLabel(const DeviceReport &report) {
    if (!report.cuda.empty()) {
        const CudaDeviceInfo &gpu = report.cuda.front();
        return "CUDA · " + gpu.name + " · " + formatBytes(gpu.total_bytes);
    }
    if (report.mps.available) {
        return "MPS · " + formatBytes(report.mps.unified_memory_bytes) + " unified";
    }
    return "CPU · " + std::to_string(report.cpu.logical_cores) + " cores · " +
           formatBytes(report.cpu.total_bytes);
}

std::string deviceReportToJson(const DeviceReport &report, int indent) {
    nlohmann::json cuda_devices = nlohmann::json::array();
    for (const CudaDeviceInfo &gpu : report.cuda) {
        cuda_devices.push_back({{"index", gpu.index},
                                {"name", gpu.name},
                                {"total_bytes", gpu.total_bytes},
                                {"free_bytes", gpu.free_bytes},
                                {"compute_capability", std::to_string(gpu.compute_major) + "." +
                                                           std::to_string(gpu.compute_minor)},
                                {"bf16", gpu.supports_bf16}});
    }
    const nlohmann::json document = {
        {"torch_version", report.torch_version},
        {"preferred_device", preferredDevice(report)},
        {"cpu",
         {{"model", report.cpu.model},
          {"logical_cores", report.cpu.logical_cores},
          {"torch_threads", report.cpu.torch_threads},
          {"total_bytes", report.cpu.total_bytes},
          {"available_bytes", report.cpu.available_bytes}}},
        {"cuda", {{"built", report.cuda_built}, {"devices", cuda_devices}}},
        {"mps",
         {{"built", report.mps.built},
          {"available", report.mps.available},
          {"unified_memory_bytes", report.mps.unified_memory_bytes}}}};
    return document.dump(indent);
}

} // namespace headroom
