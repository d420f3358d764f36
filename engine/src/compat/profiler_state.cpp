#include "compat/profiler_state.h"

#include "compat/torch_compat.h"

#include <torch/csrc/profiler/orchestration/observer.h>

#include <utility>

namespace headroom::compat {

namespace {

namespace tp = torch::profiler::impl;

#if HEADROOM_TORCH_AT_LEAST(2, 0)
using ReportedTotal = std::size_t;
#else
using ReportedTotal = std::int64_t;
#endif

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
