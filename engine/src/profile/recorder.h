// Per-operator and per-module measurement of the code that runs on the recording thread, with
// LibTorch's RecordFunction callbacks (on LibTorch 1.13 and 2.x alike, kineto or not) and the
// allocators' memory reports (compat/profiler_state.h).
//
// Each thread keeps a stack of the open ranges: operators, module and phase scopes
// (profile/scopes.h). A range's self time is its time minus that of the ranges it opened;
// an allocation or free belongs to the innermost open operator ("self memory", as in
// torch.profiler). Allocations made inside a forward phase are remembered with the innermost
// module scope open at the time; when the forward phase ends, those still alive are what each
// module holds for backward.
#pragma once

#include <headroom/profile.h>

#include <cstddef>
#include <memory>

namespace c10 {
class DebugInfoGuard;
}

namespace headroom::profile {

class Recorder {
public:
    explicit Recorder(std::size_t max_trace_events);
    ~Recorder(); // stops
    Recorder(const Recorder &) = delete;
    Recorder &operator=(const Recorder &) = delete;

    // Records on the calling thread, and on the threads LibTorch hands its work to with the
    // thread-local state (the autograd engine's), until stop(), which must run on the same
    // thread. Start and stop outside any operator or scope.
    void start();
    void stop();

    // Operators, modules, activation totals, the trace and thread names of what was recorded.
    void fillReport(ProfileReport &report) const;

    class Core;

private:
    std::shared_ptr<Core> core_;
    std::uint64_t callback_ = 0;
    std::unique_ptr<c10::DebugInfoGuard> debug_info_;
};

} // namespace headroom::profile
