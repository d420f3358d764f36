#include "memory/memory_meter.h"

#include "compat/device_memory.h"
#include "compat/torch_compat.h"
#include "memory/cpu_allocator.h"

#include <headroom/config.h>
#include <headroom/devices.h>
#include <headroom/units.h>

#include <algorithm>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace headroom::memory {

namespace {

class CpuMeter final : public MemoryMeter {
public:
    MemoryReading read() override {
        const CpuMemoryStats stats = cpuMemoryStats();
        return {stats.live, stats.peak, 0, stats.refusals};
    }
    void resetPeak() override { resetCpuPeak(); }
    void releaseCaches() override {
#if defined(__GLIBC__)
        malloc_trim(0);
#endif
    }
    void applyBudget(std::uint64_t bytes) override {
        setCpuBudget(bytes);
    }
    bool hasReserved() const override {
        return false;
    }
    bool injectOutOfMemory(std::uint64_t min_bytes) override {
        failNextCpuAllocation(min_bytes);
        return true;
    }
};

class CudaMeter final : public MemoryMeter {
public:
    explicit CudaMeter(int index) : index_(index) {}
    MemoryReading read() override {
        const compat::DeviceMemoryStats stats = compat::cudaMemoryStats(index_);
        return {stats.allocated, stats.peak, stats.reserved, stats.oom_count};
    }
    void resetPeak() override { compat::resetCudaPeak(index_); }
    void releaseCaches() override { compat::emptyCudaCache(); }
    void applyBudget(std::uint64_t bytes) override {
        std::uint64_t total = 0;
        for (const CudaDeviceInfo &info : compat::queryCudaDevices()) {
            if (info.index == index_) {
                total = info.total_bytes;
            }
        }
        if (total == 0) {
            throw ConfigError("memory.budget: cannot read the memory of cuda:" +
                              std::to_string(index_));
        }
        if (bytes > total) {
            throw ConfigError("memory.budget (" + formatBytes(bytes) + ") is more than cuda:" +
                              std::to_string(index_) + " has (" + formatBytes(total) + ")");
        }
        const double fraction =
            bytes == 0 ? 1.0 : static_cast<double>(bytes) / static_cast<double>(total);
        if (const std::string reason = compat::setCudaMemoryFraction(index_, fraction);
            !reason.empty()) {
            throw ConfigError("memory.budget: " + reason);
        }
    }
    bool hasReserved() const override { return true; }
    bool injectOutOfMemory(std::uint64_t) override { return false; }

private:
    int index_;
};

class MpsMeter final : public MemoryMeter {
public:
    MemoryReading read() override {
        const compat::DeviceMemoryStats stats = compat::mpsMemoryStats();
        peak_ = std::max(peak_, stats.allocated);
        return {stats.allocated, peak_, stats.reserved, 0};
    }
    void resetPeak() override { peak_ = compat::mpsMemoryStats().allocated; }
    void releaseCaches() override { compat::emptyMpsCache(); }
    void applyBudget(std::uint64_t bytes) override {
        if (bytes == 0) {
            return;
        }
        const compat::DeviceMemoryStats stats = compat::mpsMemoryStats();
        if (!stats.available || stats.total == 0) {
            throw ConfigError("memory.budget on mps: this LibTorch " + compat::torchVersion() +
                              " does not report MPS memory; use memory.budget=none");
        }
        const double fraction = static_cast<double>(bytes) / static_cast<double>(stats.total);
        if (const std::string reason = compat::setMpsMemoryFraction(fraction); !reason.empty()) {
            throw ConfigError("memory.budget on mps: " + reason);
        }
    }
    bool hasReserved() const override { return true; }
    bool injectOutOfMemory(std::uint64_t) override { return false; }

private:
    std::uint64_t peak_ = 0;
};

} // namespace

std::unique_ptr<MemoryMeter> makeMemoryMeter(const torch::Device &device) {
    installCountingCpuAllocator();
    if (device.is_cuda()) {
        return std::make_unique<CudaMeter>(device.has_index() ? device.index() : 0);
    }
    if (device.is_mps()) {
        return std::make_unique<MpsMeter>();
    }
    return std::make_unique<CpuMeter>();
}

} // namespace headroom::memory
