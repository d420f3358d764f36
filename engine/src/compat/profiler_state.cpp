#include "compat/profiler_state.h"

#include <torch/csrc/profiler/orchestration/observer.h>

#include <utility>

namespace headroom::compat {

namespace {

namespace tp = torch::profiler::impl;

// The type of reportMemoryUsage's totals (int64_t in 1.13, size_t in 2.x), read off the
// declaration rather than guessed from the version.
template <typename Method> struct TotalOf;
template <typename Class, typename A, typename B, typename Total, typename D, typename E>
struct TotalOf<void (Class::*)(A, B, Total, D, E)> {
    using type = Total;
};
using ReportedTotal = TotalOf<decltype(&c10::MemoryReportingInfoBase::reportMemoryUsage)>::type;

class HeadroomProfilerState final : public tp::ProfilerStateBase {
public:
    explicit HeadroomProfilerState(std::shared_ptr<MemoryReportSink> sink)
        : tp::ProfilerStateBase(tp::ProfilerConfig(tp::ProfilerState::Disabled,
                                                   /*report_input_shapes=*/false,
                                                   /*profile_memory=*/true)),
          sink_(std::move(sink)) {}

    tp::ActiveProfilerType profilerType() override { return tp::ActiveProfilerType::NONE; }

    void reportMemoryUsage(void *ptr, std::int64_t alloc_size, ReportedTotal total_allocated,
                           ReportedTotal total_reserved, c10::Device device) override {
        sink_->onMemory(ptr, alloc_size, static_cast<std::uint64_t>(total_allocated), device);
    }

    MemoryReportSink *sink() const { return sink_.get(); }

private:
    std::shared_ptr<MemoryReportSink> sink_;
};

} // namespace

std::shared_ptr<c10::DebugInfoBase> makeProfilerState(std::shared_ptr<MemoryReportSink> sink) {
    return std::make_shared<HeadroomProfilerState>(std::move(sink));
}

MemoryReportSink *currentProfilerSink() {
    auto *state = dynamic_cast<HeadroomProfilerState *>(
        c10::ThreadLocalDebugInfo::get(c10::DebugInfoKind::PROFILER_STATE));
    return state != nullptr ? state->sink() : nullptr;
}

} // namespace headroom::compat
