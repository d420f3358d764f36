// Autocast (automatic mixed precision) behind one interface: LibTorch 1.13 to 2.3 have per-device
// functions (set_cpu_enabled, set_autocast_gpu_dtype, ...), 2.4 keys them by device type
// (set_autocast_enabled(kCPU, ...), set_autocast_dtype). Nothing else in the engine calls
// at::autocast directly.
#pragma once

#include <torch/torch.h>

#include <optional>
#include <string>

namespace headroom::compat {

// The thread-local autocast settings that training code changes. Autocast state is per thread:
// code running on another thread (the autograd engine's device threads) sees its own.
struct AutocastState {
    bool cpu_enabled = false;
    torch::ScalarType cpu_dtype = torch::kBFloat16;
    bool cuda_enabled = false;
    torch::ScalarType cuda_dtype = torch::kHalf;
    // Whether autocast keeps the reduced-precision copies of fp32 weights between ops.
    bool cache_enabled = true;
};

AutocastState currentAutocastState();
// The dtype autocast computes in on this device type now; nullopt where it is off (and for
// devices other than CPU and CUDA). For code that casts explicitly what autocast would cast.
std::optional<torch::ScalarType> activeAutocastDtype(torch::DeviceType device);
void applyAutocastState(const AutocastState &state);

// "" when autocast in `dtype` works on `device` with this LibTorch and machine, otherwise a
// sentence saying why and what to use instead (fp16 on CPU before LibTorch 2.2 names bf16;
// bf16 on a CUDA GPU older than compute capability 8.0 names fp16 with loss scaling).
std::string autocastUnsupportedReason(torch::DeviceType device, torch::ScalarType dtype);

// Sets a whole autocast state for a scope and restores the previous one on exit. Counts as one
// autocast nesting level: when the outermost level exits, the weight cast cache is cleared, as
// torch.autocast does (the cache would otherwise keep stale casts of weights the optimizer
// changed in place).
class ScopedAutocastState {
public:
    explicit ScopedAutocastState(const AutocastState &state);
    ~ScopedAutocastState();
    ScopedAutocastState(const ScopedAutocastState &) = delete;
    ScopedAutocastState &operator=(const ScopedAutocastState &) = delete;

private:
    AutocastState previous_;
};

// torch.autocast(device_type, dtype, enabled) for C++: enables (or, with enabled = false,
// disables) autocast on one device type in `dtype`, leaving the other device's settings alone.
// Throws std::invalid_argument with autocastUnsupportedReason's message when enabling an
// unsupported combination, and for device types other than CPU and CUDA.
class AutocastGuard {
public:
    AutocastGuard(torch::DeviceType device, torch::ScalarType dtype, bool enabled = true);
    AutocastGuard(const AutocastGuard &) = delete;
    AutocastGuard &operator=(const AutocastGuard &) = delete;

private:
    static AutocastState stateFor(torch::DeviceType device, torch::ScalarType dtype, bool enabled);

    ScopedAutocastState scope_;
};

} // namespace headroom::compat
