#include "compat/device_memory.h"

#include "compat/torch_compat.h"

#include <cstdlib>

#if defined(HEADROOM_WITH_CUDA)
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#endif
#if defined(__APPLE__) && HEADROOM_TORCH_AT_LEAST(2, 1)
#include <ATen/detail/MPSHooksInterface.h>
#endif

namespace headroom::compat {

namespace {
// StatType::AGGREGATE is the first entry of every stat array in 1.13 and 2.x, while the enum's
// namespace moved (c10::cuda::CUDACachingAllocator -> c10::CachingDeviceAllocator).
constexpr std::size_t kAggregateStat = 0;
} // namespace

DeviceMemoryStats cudaMemoryStats([[maybe_unused]] int index) {
    DeviceMemoryStats stats;
#if defined(HEADROOM_WITH_CUDA)
    const auto device_stats =
        c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(index));
    stats.available = true;
    stats.allocated =
        static_cast<std::uint64_t>(device_stats.allocated_bytes[kAggregateStat].current);
    stats.peak = static_cast<std::uint64_t>(device_stats.allocated_bytes[kAggregateStat].peak);
    stats.reserved =
        static_cast<std::uint64_t>(device_stats.reserved_bytes[kAggregateStat].current);
    stats.oom_count = static_cast<std::uint64_t>(device_stats.num_ooms);
#endif
    return stats;
}

void setCurrentCudaDevice([[maybe_unused]] int index) {
#if defined(HEADROOM_WITH_CUDA)
    c10::cuda::set_device(static_cast<c10::DeviceIndex>(index));
#endif
}

void resetCudaPeak([[maybe_unused]] int index) {
#if defined(HEADROOM_WITH_CUDA)
    c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(index));
#endif
}

void emptyCudaCache() {
#if defined(HEADROOM_WITH_CUDA)
    c10::cuda::CUDACachingAllocator::emptyCache();
#endif
}

std::string setCudaMemoryFraction([[maybe_unused]] int index, [[maybe_unused]] double fraction) {
#if defined(HEADROOM_WITH_CUDA)
    c10::cuda::CUDACachingAllocator::setMemoryFraction(fraction,
                                                       static_cast<c10::DeviceIndex>(index));
    return "";
#else
    return "this LibTorch " + torchVersion() + " was built without CUDA";
#endif
}

DeviceMemoryStats mpsMemoryStats() {
    DeviceMemoryStats stats;
#if defined(__APPLE__) && HEADROOM_TORCH_AT_LEAST(2, 1)
    const auto &hooks = at::detail::getMPSHooks();
    if (hooks.hasMPS()) {
        stats.available = true;
        stats.allocated = hooks.getCurrentAllocatedMemory();
        stats.reserved = hooks.getDriverAllocatedMemory();
        stats.peak = stats.allocated; // the caller tracks the peak by polling
#if HEADROOM_TORCH_AT_LEAST(2, 3)
        // setMemoryFraction is relative to Metal's recommended working set, not to RAM.
        stats.total = hooks.getRecommendedMaxMemory();
#endif
    }
#endif
    return stats;
}

void emptyMpsCache() {
#if defined(__APPLE__) && HEADROOM_TORCH_AT_LEAST(2, 1)
    at::detail::getMPSHooks().emptyCache();
#endif
}

std::string setMpsMemoryFraction([[maybe_unused]] double fraction) {
#if defined(__APPLE__) && HEADROOM_TORCH_AT_LEAST(2, 1)
    at::detail::getMPSHooks().setMemoryFraction(fraction);
    return "";
#else
    return "this LibTorch " + torchVersion() + " cannot cap MPS memory (2.1 or newer can)";
#endif
}

std::string applyCudaAllocatorSettings([[maybe_unused]] const std::string &settings) {
#if defined(HEADROOM_WITH_CUDA)
    // Read when the caching allocator initializes, which happens at the first CUDA tensor: the
    // trainer calls this before creating any.
#if defined(_WIN32)
    _putenv_s("PYTORCH_CUDA_ALLOC_CONF", settings.c_str());
#else
    ::setenv("PYTORCH_CUDA_ALLOC_CONF", settings.c_str(), 1);
#endif
    return "";
#else
    return "allocator settings apply to the CUDA caching allocator, and this LibTorch " +
           torchVersion() + " was built without CUDA";
#endif
}

std::string expandableSegmentsUnsupportedReason() {
#if HEADROOM_TORCH_AT_LEAST(2, 1)
    return "";
#else
    return "expandable segments need LibTorch 2.1 or newer (this build: " + torchVersion() + ")";
#endif
}

} // namespace headroom::compat
