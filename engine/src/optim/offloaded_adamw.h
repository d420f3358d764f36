#pragma once

#include "optim/fused_adamw.h"
#include "optim/optimizer.h"

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace headroom::train {

// AdamW whose state lives in host memory: an fp32 master copy of the parameters and both
// moments (a FusedAdamW over the host copies does the update), so the device holds only the
// parameters and their gradients. step() copies the gradients to host (asynchronously into
// a pinned staging buffer when the parameters are on CUDA, then synchronizes), updates on the
// host and copies the parameters back. clipGradNorm() measures on the device.
// Parameters already on the CPU work the same way (the copies are then plain memory copies):
// that is how it is tested without a GPU. Whether offloading makes sense on a device is the
// configuration's decision, not this class's.
class OffloadedAdamW final : public Optimizer {
public:
    // Duplicates are kept once. All parameters must share one device and be dense floating
    // point (throws std::invalid_argument otherwise).
    explicit OffloadedAdamW(const std::vector<torch::Tensor> &parameters,
                            AdamWOptions options = {});

    // The same parameters, hyperparameters, step counts and moments as source (a pending
    // clip factor of source is not carried over: switch between steps).
    static std::unique_ptr<OffloadedAdamW> fromFusedAdamW(FusedAdamW &source);

    std::string kind() const override { return "offloaded_adamw"; }
    void setLearningRate(double lr) override { host_->options().lr(lr); }
    double clipGradNorm(double max_norm) override;
    void step() override;
    void zeroGrad() override;
    std::int64_t parameterCount() const override { return parameter_count_; }
    // Host bytes: moments, the master copy of the parameters and the staging buffer.
    std::uint64_t stateBytes() const override;
    // Device bytes the optimizer adds: none.
    std::uint64_t deviceStateBytes() const { return 0; }
    void saveState(torch::serialize::OutputArchive &archive) override;
    void loadState(torch::serialize::InputArchive &archive) override;
    // The fp32 master copy, then the host optimizer's moments.
    std::vector<torch::Tensor> parameterState(std::size_t index) const override;
    void setParameterState(std::size_t index, const std::vector<torch::Tensor> &state) override;

    const std::vector<torch::Tensor> &parameters() const override { return parameters_; }
    // The update on the host copies (its parameters() are the fp32 master copies, in
    // parameters() order).
    FusedAdamW &hostOptimizer() { return *host_; }
    std::vector<std::int64_t> &stepCounts() { return host_->stepCounts(); }
    // True when the staging buffer is page-locked (parameters on CUDA).
    bool pinned() const { return pinned_; }

private:
    torch::Tensor stagingOf(std::size_t index) const;
    // Copies the master copies of the parameters that have an update back to the device.
    void copyParametersToDevice(const std::vector<std::size_t> &indices);

    std::vector<torch::Tensor> parameters_;      // on the device
    std::vector<torch::Tensor> host_parameters_; // fp32 master copies (views into host_)
    std::unique_ptr<FusedAdamW> host_;
    torch::Tensor staging_; // fp32 host: gradients in, parameters out
    std::vector<std::int64_t> staging_offsets_;
    std::int64_t parameter_count_ = 0;
    bool pinned_ = false;
    double pending_grad_scale_ = 1.0;
};

} // namespace headroom::train
