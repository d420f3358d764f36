#include "memory/cpu_allocator.h"

#include "compat/torch_compat.h"
#include "profile/recording.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace headroom::memory {

namespace {

// Every block starts with a header holding its size, so the deleter, which receives only the
// data pointer (the context must equal the data pointer: kernels call raw_allocate), knows
// how much to take off the count. 64 bytes keep the data 64-byte aligned, as LibTorch's own
// CPU allocator does.
constexpr std::size_t kAlignment = 64;
constexpr std::size_t kHeader = 64;

std::atomic<std::uint64_t> g_live{0};
std::atomic<std::uint64_t> g_peak{0};
std::atomic<std::uint64_t> g_budget{0};
std::atomic<std::uint64_t> g_refusals{0};
std::atomic<std::uint64_t> g_fail_at_least{0}; // 0 = no injected failure armed

std::string mib(std::uint64_t bytes) {
    if (bytes < (1u << 20)) {
        return std::to_string((bytes + 512) >> 10) + " KiB";
    }
    return std::to_string((bytes + (1u << 19)) >> 20) + " MiB";
}

void raisePeak(std::uint64_t live) {
    std::uint64_t peak = g_peak.load(std::memory_order_relaxed);
    while (live > peak && !g_peak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
    }
}

// Tells a profile recording on this thread (profile/recorder.h) about an allocation (bytes > 0)
// or a free, as LibTorch's own CPU allocator does.
void reportToProfiler(void *data, std::int64_t bytes, std::uint64_t live) {
    if (profile::recording() && c10::memoryProfilingEnabled()) {
        c10::reportMemoryUsageToProfiler(data, bytes, live, live,
                                         c10::Device(c10::DeviceType::CPU));
    }
}

void releaseBlock(void *data) {
    if (data == nullptr) {
        return;
    }
    char *base = static_cast<char *>(data) - kHeader;
    std::uint64_t size = 0;
    std::memcpy(&size, base, sizeof size);
    const std::uint64_t live = g_live.fetch_sub(size, std::memory_order_relaxed) - size;
    // Before the block can be handed out again: the recorder keys allocations by address.
    reportToProfiler(data, -static_cast<std::int64_t>(size), live);
    std::free(base);
}

class CountingCpuAllocator final : public c10::Allocator {
public:
#if HEADROOM_TORCH_AT_LEAST(2, 3)
    c10::DataPtr allocate(std::size_t bytes) override {
        return allocateCounted(bytes);
    }
    void copy_data(void *dest, const void *src, std::size_t count) const override {
        default_copy_data(dest, src, count);
    }
#else
    c10::DataPtr allocate(std::size_t bytes) const override {
        return allocateCounted(bytes);
    }
#endif
    c10::DeleterFnPtr raw_deleter() const override {
        return &releaseBlock;
    }

private:
    static c10::DataPtr allocateCounted(std::size_t bytes) {
        const c10::Device cpu(c10::DeviceType::CPU);
        if (bytes == 0) {
            return {nullptr, nullptr, &releaseBlock, cpu};
        }
        std::uint64_t armed = g_fail_at_least.load();
        if (armed != 0 && bytes >= armed && g_fail_at_least.compare_exchange_strong(armed, 0)) {
            g_refusals.fetch_add(1);
            TORCH_CHECK_WITH(OutOfMemoryError, false,
                             "CPU out of memory (injected): tried to allocate ", mib(bytes),
                             " with ", mib(g_live.load()), " in use");
        }
        const std::uint64_t budget = g_budget.load(std::memory_order_relaxed);
        const std::uint64_t live = g_live.fetch_add(bytes, std::memory_order_relaxed) + bytes;
        if (budget != 0 && live > budget) {
            g_live.fetch_sub(bytes, std::memory_order_relaxed);
            g_refusals.fetch_add(1);
            TORCH_CHECK_WITH(OutOfMemoryError, false, "CPU out of memory: tried to allocate ",
                             mib(bytes), " with ", mib(live - bytes), " in use and a budget of ",
                             mib(budget), " (memory.budget)");
        }
        void *base = nullptr;
        if (posix_memalign(&base, kAlignment, kHeader + bytes) != 0 || base == nullptr) {
            g_live.fetch_sub(bytes, std::memory_order_relaxed);
            TORCH_CHECK_WITH(OutOfMemoryError, false, "CPU out of memory: the system refused ",
                             mib(bytes));
        }
        const std::uint64_t size = bytes;
        std::memcpy(base, &size, sizeof size);
        raisePeak(live);
        void *data = static_cast<char *>(base) + kHeader;
        reportToProfiler(data, static_cast<std::int64_t>(bytes), live);
        return {data, data, &releaseBlock, cpu};
    }
};

// LibTorch keeps a raw pointer to the allocator: it must outlive every tensor.
CountingCpuAllocator g_allocator;
std::once_flag g_installed;

} // namespace

void installCountingCpuAllocator() {
    std::call_once(g_installed, [] { c10::SetCPUAllocator(&g_allocator, /*priority=*/100); });
}

CpuMemoryStats cpuMemoryStats() {
    CpuMemoryStats stats;
    stats.live = g_live.load();
    stats.peak = g_peak.load();
    stats.budget = g_budget.load();
    stats.refusals = g_refusals.load();
    return stats;
}

void setCpuBudget(std::uint64_t bytes) {
    g_budget.store(bytes);
}

void resetCpuPeak() {
    g_peak.store(g_live.load());
}

void failNextCpuAllocation(std::uint64_t min_bytes) {
    g_fail_at_least.store(min_bytes);
}

} // namespace headroom::memory
