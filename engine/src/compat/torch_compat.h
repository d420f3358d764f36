// The one place where LibTorch 1.13 (Debian) and 2.x (GPU servers, user downloads) differ.
#pragma once

#include <torch/version.h>

#define HEADROOM_TORCH_AT_LEAST(major, minor)                                                      \
    (TORCH_VERSION_MAJOR > (major) ||                                                              \
     (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

#include <headroom/devices.h>

#include <string>
#include <vector>

namespace headroom::compat {

inline std::string torchVersion() {
    return TORCH_VERSION;
}

// True when this LibTorch was built with CUDA (whether or not a GPU is present).
bool cudaBuilt();

// Every visible CUDA device with name, memory and capabilities; empty without CUDA.
std::vector<CudaDeviceInfo> queryCudaDevices();

// MPS availability as the build and the machine report it.
MpsInfo queryMps(std::uint64_t unified_memory_bytes);

} // namespace headroom::compat
