// The object LibTorch's allocators report allocations to while Headroom profiles. It is pushed
// on c10::ThreadLocalDebugInfo under DebugInfoKind::PROFILER_STATE, which travels with the
// thread-local state to the autograd engine's threads, and the allocators call it through
// c10::reportMemoryUsageToProfiler. That slot belongs to torch's own profiler, which reads it
// back with ProfilerStateBase::get() and static_casts what it finds: the object must therefore
// be a ProfilerStateBase, with a Disabled config (torch's profiler is not running, so torch
// leaves it alone) and profile_memory on (so the allocators report). 1.13 and 2.x differ in
// the integer types of reportMemoryUsage.
#pragma once

#include <c10/core/Device.h>
#include <c10/util/ThreadLocalDebugInfo.h>

#include <cstdint>
#include <memory>

namespace headroom::compat {

// Receives the reports: bytes > 0 allocated at ptr, bytes < 0 freed; total_allocated is the
// device allocator's live bytes after the change.
class MemoryReportSink {
public:
    virtual ~MemoryReportSink() = default;
    virtual void onMemory(void *ptr, std::int64_t bytes, std::uint64_t total_allocated,
                          c10::Device device) = 0;
};

// A PROFILER_STATE object forwarding to `sink`, for c10::DebugInfoGuard.
std::shared_ptr<c10::DebugInfoBase> makeProfilerState(std::shared_ptr<MemoryReportSink> sink);

// The sink of the profiler state on this thread, or nullptr (no Headroom profile here).
MemoryReportSink *currentProfilerSink();

} // namespace headroom::compat
