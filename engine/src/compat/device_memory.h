#pragma once

// Device allocator statistics and controls (CUDA caching allocator, MPS). The APIs differ
// between LibTorch 1.13 and 2.x and exist only in CUDA / Apple builds: this is the one place
// that knows.

#include <cstdint>
#include <string>

namespace headroom::compat {

struct DeviceMemoryStats {
    bool available = false;      // false: this build or device reports nothing
    std::uint64_t allocated = 0; // bytes held by tensors
    std::uint64_t reserved = 0;  // bytes the allocator holds from the driver (cache included)
    std::uint64_t peak = 0;      // allocated peak since the last reset
    std::uint64_t oom_count = 0; // allocation failures the allocator saw
    std::uint64_t total = 0;     // device memory (CUDA) or the recommended working set (MPS)
};

// index: the CUDA device; ignored for MPS.
DeviceMemoryStats cudaMemoryStats(int index);
void resetCudaPeak(int index);
// This thread's current CUDA device (where a CUDA context, and what no device names, goes):
// a rank of a distributed run sets its own GPU. Nothing without CUDA.
void setCurrentCudaDevice(int index);
void emptyCudaCache();
// Caps the caching allocator at fraction x device memory, so a budget is what the device
// looks like: allocations beyond it fail with a real CUDA out-of-memory error. Returns "" or
// why it could not.
std::string setCudaMemoryFraction(int index, double fraction);

DeviceMemoryStats mpsMemoryStats();
void emptyMpsCache();
std::string setMpsMemoryFraction(double fraction);

// Allocator settings as PYTORCH_CUDA_ALLOC_CONF spells them ("expandable_segments:True,
// max_split_size_mb:512"). Returns "" when applied, else the reason (old LibTorch, no CUDA).
std::string applyCudaAllocatorSettings(const std::string &settings);
// "" when this LibTorch knows expandable segments (2.1 and newer), else why not.
std::string expandableSegmentsUnsupportedReason();

} // namespace headroom::compat
