#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <string>

namespace headroom::memory {

struct MemoryReading {
    std::uint64_t live = 0;     // bytes held by tensors on the training device
    std::uint64_t peak = 0;     // highest live since the last resetPeak()
    std::uint64_t reserved = 0; // bytes the device allocator holds (cache included); 0 = n/a
    std::uint64_t oom_count = 0;
};

// One interface over the training device's memory: the counting CPU allocator, the CUDA
// caching allocator, or MPS (peak tracked by polling). Sampled every step.
class MemoryMeter {
public:
    virtual ~MemoryMeter() = default;
    virtual MemoryReading read() = 0;
    virtual void resetPeak() = 0;
    // Gives cached but unused memory back (CUDA/MPS caches; malloc_trim on CPU).
    virtual void releaseCaches() = 0;
    // Makes `bytes` (0 = none) the most the device will give this process; allocations
    // beyond it fail with the device's real out-of-memory error. Throws ConfigError with the
    // reason when the device or build cannot enforce it.
    virtual void applyBudget(std::uint64_t bytes) = 0;
    virtual bool hasReserved() const = 0;
    // Arms a one-shot out-of-memory error for the next allocation of at least min_bytes
    // (HEADROOM_FAILPOINT=oom). Returns false where the device cannot inject one.
    virtual bool injectOutOfMemory(std::uint64_t min_bytes) = 0;
};

// The meter for `device`; installs the counting CPU allocator for CPU (and for every device,
// since host tensors are counted either way).
std::unique_ptr<MemoryMeter> makeMemoryMeter(const torch::Device &device);

} // namespace headroom::memory
