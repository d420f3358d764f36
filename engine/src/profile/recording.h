// Whether a profile records anywhere in this process: the one check that the model scopes and
// the CPU allocator's reports make when no profile runs.
#pragma once

#include <atomic>

namespace headroom::profile {

// Recordings in progress (profile::Recorder between start() and stop()).
extern std::atomic<int> g_active_recordings;

inline bool recording() {
    return g_active_recordings.load(std::memory_order_relaxed) != 0;
}

} // namespace headroom::profile
