#pragma once

#include <cstdint>

namespace headroom::memory {

struct CpuMemoryStats {
    std::uint64_t live = 0;   // bytes of tensor memory allocated now
    std::uint64_t peak = 0;   // highest `live` since the last resetCpuPeak()
    std::uint64_t budget = 0; // 0 = no budget
    std::uint64_t refusals = 0;
};

// Installs Headroom's counting allocator as LibTorch's CPU allocator (once per process; later
// calls do nothing). It counts the live and peak bytes of every CPU tensor allocated after it
// is installed and refuses an allocation that would take `live` over the budget by throwing
// c10::OutOfMemoryError, exactly as a small device would.
void installCountingCpuAllocator();

CpuMemoryStats cpuMemoryStats();
void setCpuBudget(std::uint64_t bytes); // 0 removes the budget
void resetCpuPeak();                    // peak := live

// Fault injection for tests: the next allocation of at least `min_bytes` fails with a real
// c10::OutOfMemoryError, once. 0 disarms it.
void failNextCpuAllocation(std::uint64_t min_bytes);

} // namespace headroom::memory
