// Dynamic loss scaling for fp16 training (LibTorch has no C++ GradScaler). fp16 has a narrow
// exponent range: small gradients underflow to zero. Multiplying the loss by a large scale
// lifts them into range; gradients are divided by the scale again before the optimizer step.
// When a scaled gradient overflows (inf/NaN), that step is skipped and the scale backs off;
// after growth_interval clean steps in a row it grows again.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace headroom::train {

struct LossScalerOptions {
    TORCH_ARG(double, init_scale) = 65536.0;
    TORCH_ARG(double, growth_factor) = 2.0;
    TORCH_ARG(double, backoff_factor) = 0.5;
    TORCH_ARG(std::int64_t, growth_interval) = 2000;
    // Off (fp32, bf16): scale() returns the loss, unscaleAndCheck() touches nothing and
    // returns true, update() does nothing.
    TORCH_ARG(bool, enabled) = true;
};

// Per optimizer step:
//   scaler.scale(loss).backward();            // every micro-batch
//   bool finite = scaler.unscaleAndCheck(params);
//   if (finite) optimizer.step();             // otherwise the step is skipped
//   scaler.update(!finite);
class DynamicLossScaler {
public:
    // Throws std::invalid_argument naming the bad option.
    explicit DynamicLossScaler(LossScalerOptions options = {});

    torch::Tensor scale(const torch::Tensor &loss) const;

    // Divides every defined gradient of `parameters` by the current scale in place and returns
    // true when all of them are finite. Gradients on CUDA go through the fused
    // _amp_foreach_non_finite_check_and_unscale_; elsewhere through equivalent tensor ops.
    // Both read the result back once per call (one device sync). Calling it twice without
    // update() in between throws std::logic_error: the gradients would be divided twice.
    // Sparse gradients are refused with std::invalid_argument.
    bool unscaleAndCheck(const std::vector<torch::Tensor> &parameters);

    // Ends the optimizer step. found_inf: backs off the scale, counts a skipped step and
    // restarts the count of clean steps; otherwise counts a clean step and grows the scale
    // after growth_interval of them (never past the largest finite fp32 value).
    void update(bool found_inf);

    double currentScale() const { return scale_; }
    std::int64_t skippedSteps() const { return skipped_steps_; }
    // Clean steps since the last growth or back-off.
    std::int64_t growthTracker() const { return growth_tracker_; }
    bool enabled() const { return options_.enabled(); }
    const LossScalerOptions &options() const { return options_; }

    // Scale, growth tracker and skipped steps, under keys prefixed "loss_scaler.".
    void save(torch::serialize::OutputArchive &archive) const;
    // Throws std::runtime_error naming a missing or malformed key.
    void load(torch::serialize::InputArchive &archive);

private:
    LossScalerOptions options_;
    double scale_;
    std::int64_t growth_tracker_ = 0;
    std::int64_t skipped_steps_ = 0;
    bool unscaled_since_update_ = false;
};

} // namespace headroom::train
