#pragma once

#include "optim/optimizer.h"

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace headroom::train {

using FusedAdamWOptions = AdamWOptions;

// AdamW with the update torch::optim::AdamW makes (decoupled weight decay, bias-corrected
// moments), laid out for speed:
// - the parameters are moved into one contiguous buffer (each parameter tensor becomes a view
//   of it, so modules keep working) and the two moments are contiguous buffers of the same
//   layout;
// - on CPU float32, step() is one parallel pass over that buffer that reads gradient,
//   parameter and moments once and writes them once, instead of about ten tensor operations
//   per parameter;
// - clipGradNorm() only measures: the clip factor is applied inside the next step(), so
//   clipping costs one read of the gradients instead of a read and a write.
// Other devices and dtypes take the same math through whole-buffer tensor operations.
// Create it after the model is on its final device and dtype (moving a module later
// reallocates its parameters and detaches them from the buffer).
class FusedAdamW final : public Optimizer {
public:
    // Duplicates (a tied weight listed twice) are kept once. All parameters must share one
    // device and dtype (throws std::invalid_argument otherwise).
    explicit FusedAdamW(const std::vector<torch::Tensor> &parameters,
                        FusedAdamWOptions options = {});

    // L2 norm of all gradients as one vector (what torch::nn::utils::clip_grad_norm_
    // returns). The next step() multiplies gradients by min(1, max_norm / (norm + 1e-6)).
    std::string kind() const override { return "fused_adamw"; }
    void setLearningRate(double lr) override { options_.lr(lr); }
    double clipGradNorm(double max_norm) override;
    // One AdamW update of every parameter that has a gradient (others are left alone, as
    // torch::optim::AdamW does), then forgets the pending clip factor.
    void step() override;
    // Sets every gradient to none, so backward allocates (or steals) fresh ones, and drops a
    // pending clip factor (an abandoned step, e.g. after out-of-memory, must not leak it).
    void zeroGrad() override;

    FusedAdamWOptions &options() { return options_; }
    const std::vector<torch::Tensor> &parameters() const override { return parameters_; }
    std::int64_t parameterCount() const override { return total_; }
    std::uint64_t stateBytes() const override;
    void saveState(torch::serialize::OutputArchive &archive) override;
    void loadState(torch::serialize::InputArchive &archive) override;
    std::vector<torch::Tensor> parameterState(std::size_t index) const override;
    void setParameterState(std::size_t index, const std::vector<torch::Tensor> &state) override;
    // The buffers behind the parameters and the moments, [parameterCount()] each, in
    // parameters() order. For checkpoints.
    const torch::Tensor &flatParameters() const { return flat_parameters_; }
    torch::Tensor &expAvg() { return exp_avg_; }
    torch::Tensor &expAvgSq() { return exp_avg_sq_; }
    // The moments of parameters()[index], shaped like it (views into the buffers).
    torch::Tensor expAvgOf(std::size_t index) const;
    torch::Tensor expAvgSqOf(std::size_t index) const;
    // Updates each parameter has received (bias correction is per parameter).
    std::vector<std::int64_t> &stepCounts() { return steps_; }

private:
    void stepFusedCpu();
    void stepGeneric();

    FusedAdamWOptions options_;
    std::vector<torch::Tensor> parameters_;
    std::vector<std::int64_t> offsets_; // start of each parameter in the flat buffers
    std::vector<std::int64_t> steps_;
    std::int64_t total_ = 0;
    torch::Tensor flat_parameters_;
    torch::Tensor exp_avg_;
    torch::Tensor exp_avg_sq_;
    double pending_grad_scale_ = 1.0;
};

} // namespace headroom::train
