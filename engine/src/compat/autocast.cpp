#include "compat/autocast.h"

#include "compat/torch_compat.h"

#include <ATen/autocast_mode.h>
#include <torch/cuda.h>

#if defined(HEADROOM_WITH_CUDA)
#include <ATen/cuda/CUDAContext.h>
#endif

#include <stdexcept>

namespace headroom::compat {

namespace {

std::string precisionName(torch::ScalarType dtype) {
    switch (dtype) {
    case torch::kBFloat16:
        return "bf16";
    case torch::kHalf:
        return "fp16";
    case torch::kFloat:
        return "fp32";
    case torch::kDouble:
        return "fp64";
    default:
        return c10::toString(dtype);
    }
}

std::string cudaReason(torch::ScalarType dtype) {
    if (!torch::cuda::is_available()) {
        return "autocast on CUDA needs a CUDA GPU, and " +
               std::string(cudaBuilt() ? "none is available" : "this LibTorch has no CUDA") +
               "; use bf16 on the CPU or fp32";
    }
#if defined(HEADROOM_WITH_CUDA)
    if (dtype == torch::kBFloat16) {
        const cudaDeviceProp *properties = at::cuda::getCurrentDeviceProperties();
        // bf16 tensor-core math arrived with Ampere.
        if (properties->major < 8) {
            return "bf16 autocast on CUDA needs compute capability 8.0 or newer; " +
                   std::string(properties->name) + " has " + std::to_string(properties->major) +
                   "." + std::to_string(properties->minor) +
                   ": use fp16 (with loss scaling) instead";
        }
    }
#else
    (void)dtype;
#endif
    return "";
}

} // namespace

std::optional<torch::ScalarType> activeAutocastDtype(torch::DeviceType device) {
    const AutocastState state = currentAutocastState();
    if (device == torch::kCPU && state.cpu_enabled) {
        return state.cpu_dtype;
    }
    if (device == torch::kCUDA && state.cuda_enabled) {
        return state.cuda_dtype;
    }
    return std::nullopt;
}

AutocastState currentAutocastState() {
    AutocastState state;
#if HEADROOM_TORCH_AT_LEAST(2, 4)
    state.cpu_enabled = at::autocast::is_autocast_enabled(at::kCPU);
    state.cpu_dtype = at::autocast::get_autocast_dtype(at::kCPU);
    state.cuda_enabled = at::autocast::is_autocast_enabled(at::kCUDA);
    state.cuda_dtype = at::autocast::get_autocast_dtype(at::kCUDA);
#else
    state.cpu_enabled = at::autocast::is_cpu_enabled();
    state.cpu_dtype = at::autocast::get_autocast_cpu_dtype();
    state.cuda_enabled = at::autocast::is_enabled();
    state.cuda_dtype = at::autocast::get_autocast_gpu_dtype();
#endif
    state.cache_enabled = at::autocast::is_autocast_cache_enabled();
    return state;
}

void applyAutocastState(const AutocastState &state) {
#if HEADROOM_TORCH_AT_LEAST(2, 4)
    at::autocast::set_autocast_enabled(at::kCPU, state.cpu_enabled);
    at::autocast::set_autocast_dtype(at::kCPU, state.cpu_dtype);
    at::autocast::set_autocast_enabled(at::kCUDA, state.cuda_enabled);
    at::autocast::set_autocast_dtype(at::kCUDA, state.cuda_dtype);
#else
    at::autocast::set_cpu_enabled(state.cpu_enabled);
    at::autocast::set_autocast_cpu_dtype(state.cpu_dtype);
    at::autocast::set_enabled(state.cuda_enabled);
    at::autocast::set_autocast_gpu_dtype(state.cuda_dtype);
#endif
    at::autocast::set_autocast_cache_enabled(state.cache_enabled);
}

std::string autocastUnsupportedReason(torch::DeviceType device, torch::ScalarType dtype) {
    if (dtype != torch::kBFloat16 && dtype != torch::kHalf) {
        return "autocast computes in bf16 or fp16, not " + precisionName(dtype) + "; for " +
               precisionName(dtype) + " leave autocast off";
    }
    switch (device) {
    case torch::kCPU:
#if !HEADROOM_TORCH_AT_LEAST(2, 2)
        if (dtype == torch::kHalf) {
            return "fp16 autocast on the CPU needs LibTorch 2.2 or newer (this is " +
                   torchVersion() + "); use bf16 on the CPU instead";
        }
#endif
        return "";
    case torch::kCUDA:
        return cudaReason(dtype);
    case torch::kMPS:
        return "autocast on mps is not supported by Headroom with LibTorch " + torchVersion() +
               "; use fp32 there";
    default:
        return "autocast is not supported on " + c10::DeviceTypeName(device, true) +
               "; use fp32 there";
    }
}

ScopedAutocastState::ScopedAutocastState(const AutocastState &state)
    : previous_(currentAutocastState()) {
    at::autocast::increment_nesting();
    applyAutocastState(state);
}

ScopedAutocastState::~ScopedAutocastState() {
    applyAutocastState(previous_);
    if (at::autocast::decrement_nesting() == 0) {
        at::autocast::clear_cache();
    }
}

AutocastGuard::AutocastGuard(torch::DeviceType device, torch::ScalarType dtype, bool enabled)
    : scope_(stateFor(device, dtype, enabled)) {}

AutocastState AutocastGuard::stateFor(torch::DeviceType device, torch::ScalarType dtype,
                                      bool enabled) {
    if (device != torch::kCPU && device != torch::kCUDA) {
        throw std::invalid_argument(autocastUnsupportedReason(device, dtype));
    }
    if (enabled) {
        const std::string reason = autocastUnsupportedReason(device, dtype);
        if (!reason.empty()) {
            throw std::invalid_argument(reason);
        }
    }
    AutocastState state = currentAutocastState();
    if (device == torch::kCPU) {
        state.cpu_enabled = enabled;
        state.cpu_dtype = dtype;
    } else {
        state.cuda_enabled = enabled;
        state.cuda_dtype = dtype;
    }
    return state;
}

} // namespace headroom::compat
