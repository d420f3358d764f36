#include "device/resolve_device.h"

#include <headroom/config.h>
#include <headroom/devices.h>

namespace headroom::device {

torch::Device resolveDevice(const std::string &device) {
    const DeviceReport report = detectDevices();
    const std::string name = device == "auto" ? preferredDevice(report) : device;
    if (name == "cpu") {
        return torch::Device(torch::kCPU);
    }
    if (name == "mps") {
        if (!report.mps.available) {
            throw ConfigError(
                "device=mps is not available here (" +
                std::string(report.mps.built ? "no Apple GPU found" : "this LibTorch has no MPS") +
                "); use device=cpu or device=auto");
        }
        return torch::Device(torch::kMPS);
    }
    // cuda or cuda:N
    if (!report.cuda_built) {
        throw ConfigError("device=" + name +
                          " is not available: this LibTorch build has no CUDA; use device=cpu "
                          "or device=auto");
    }
    const int index = name == "cuda" ? 0 : std::stoi(name.substr(5));
    if (index >= static_cast<int>(report.cuda.size())) {
        throw ConfigError("device=" + name + " is not available: " +
                          std::to_string(report.cuda.size()) + " CUDA device(s) visible");
    }
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
}

torch::Device resolveRankDevice(const std::string &device, int local_rank) {
    if (device != "auto" && device != "cuda") {
        return resolveDevice(device); // cuda:N: every rank of the machine on that GPU
    }
    const DeviceReport report = detectDevices();
    if (device == "auto" && report.cuda.empty()) {
        return resolveDevice(device);
    }
    if (!report.cuda_built || report.cuda.empty()) {
        return resolveDevice(device); // its refusal
    }
    const auto visible = static_cast<int>(report.cuda.size());
    if (local_rank >= visible) {
        throw ConfigError(
            "LOCAL_RANK=" + std::to_string(local_rank) +
            " asks for the GPU cuda:" + std::to_string(local_rank) + " (device=" + device +
            " gives each rank of a machine the GPU of its LOCAL_RANK), but " +
            std::to_string(visible) + " CUDA device(s) are visible here: start at most " +
            std::to_string(visible) +
            " ranks on this machine (--nproc), or share one GPU with device=cuda:0 "
            "and distributed.backend=gloo");
    }
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(local_rank));
}

} // namespace headroom::device
