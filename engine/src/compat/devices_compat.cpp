#include "compat/torch_compat.h"

#include <ATen/Context.h>

#if defined(HEADROOM_WITH_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace headroom::compat {

bool cudaBuilt() {
#if defined(HEADROOM_WITH_CUDA)
    return true;
#else
    return false;
#endif
}

std::vector<CudaDeviceInfo> queryCudaDevices() {
    std::vector<CudaDeviceInfo> devices;
#if defined(HEADROOM_WITH_CUDA)
    if (!at::hasCUDA()) {
        return devices;
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        return devices;
    }
    int previous = 0;
    cudaGetDevice(&previous);
    for (int index = 0; index < count; ++index) {
        cudaDeviceProp properties{};
        if (cudaGetDeviceProperties(&properties, index) != cudaSuccess) {
            continue;
        }
        CudaDeviceInfo info;
        info.index = index;
        info.name = properties.name;
        info.total_bytes = properties.totalGlobalMem;
        info.compute_major = properties.major;
        info.compute_minor = properties.minor;
        // bf16 tensor-core math arrived with Ampere (compute capability 8.0).
        info.supports_bf16 = properties.major >= 8;
        std::size_t free_bytes = 0;
        std::size_t total_bytes = 0;
        if (cudaSetDevice(index) == cudaSuccess &&
            cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
            info.free_bytes = free_bytes;
            info.total_bytes = total_bytes;
        }
        devices.push_back(info);
    }
    cudaSetDevice(previous);
#endif
    return devices;
}

MpsInfo queryMps(std::uint64_t unified_memory_bytes) {
    MpsInfo info;
#if defined(__APPLE__)
    info.built = true;
#endif
    info.available = at::hasMPS();
    info.built = info.built || info.available;
    if (info.available) {
        info.unified_memory_bytes = unified_memory_bytes;
    }
    return info;
}

} // namespace headroom::compat
