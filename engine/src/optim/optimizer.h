#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

namespace headroom::train {

// Hyperparameters shared by every AdamW variant (fused fp32, 8-bit, offloaded).
struct AdamWOptions {
    TORCH_ARG(double, lr) = 1e-3;
    TORCH_ARG(double, beta1) = 0.9;
    TORCH_ARG(double, beta2) = 0.999;
    TORCH_ARG(double, eps) = 1e-8;
    TORCH_ARG(double, weight_decay) = 1e-2;
};

// What the trainer needs from an optimizer. Gradients are read from the parameters' grad();
// a loss scaler unscales them in place before clipGradNorm().
class Optimizer {
public:
    virtual ~Optimizer() = default;

    // Stored in checkpoints: "fused_adamw", "adamw8bit", "offloaded_adamw".
    virtual std::string kind() const = 0;
    virtual void setLearningRate(double lr) = 0;
    // L2 norm of all gradients as one vector (what torch::nn::utils::clip_grad_norm_
    // returns); the next step() scales gradients by min(1, max_norm / (norm + 1e-6)).
    virtual double clipGradNorm(double max_norm) = 0;
    // One update of every parameter that has a gradient, then forgets a pending clip factor.
    virtual void step() = 0;
    // Sets every gradient to none and drops a pending clip factor.
    virtual void zeroGrad() = 0;
    // The parameters it updates, each once (a tied weight is listed once).
    virtual const std::vector<torch::Tensor> &parameters() const = 0;
    // Elements of those parameters.
    virtual std::int64_t parameterCount() const = 0;
    // Bytes the optimizer state occupies (moments, quantization scales, host copies), for
    // the memory breakdown and the benchmark's bytes per parameter.
    virtual std::uint64_t stateBytes() const = 0;
    // Writes / reads everything exact resume needs (moments, step counts). loadState throws
    // std::runtime_error with a message naming what does not fit (no path: the caller adds it).
    virtual void saveState(torch::serialize::OutputArchive &archive) = 0;
    virtual void loadState(torch::serialize::InputArchive &archive) = 0;
    // One parameter's share of the state (its slices of the moments, block scales or master
    // copy, then its step count as a one-element int64 tensor): views into the optimizer's
    // buffers, whose number and shapes follow from the kind and the parameter's size alone.
    // A sharded optimizer moves state parameter by parameter between ranks with these
    // (distributed/sharded_optimizer.h). setParameterState copies values into place and throws
    // std::runtime_error naming the parameter when a tensor does not fit.
    virtual std::vector<torch::Tensor> parameterState(std::size_t index) const = 0;
    virtual void setParameterState(std::size_t index, const std::vector<torch::Tensor> &state) = 0;
};

} // namespace headroom::train
