#include "optim/offloaded_adamw.h"

#include "optim/optimizer_support.h"

#include <torch/cuda.h>

#include <stdexcept>
#include <string>
#include <unordered_set>

namespace headroom::train {

OffloadedAdamW::OffloadedAdamW(const std::vector<torch::Tensor> &parameters, AdamWOptions options) {
    parameters_ = uniqueParameters(parameters, "OffloadedAdamW");
    const torch::Device device = parameters_.front().device();
    for (const torch::Tensor &parameter : parameters_) {
        if (parameter.device() != device) {
            throw std::invalid_argument("OffloadedAdamW: all parameters must share one device "
                                        "(found " +
                                        parameter.device().str() + " next to " + device.str() +
                                        ")");
        }
        if (!parameter.is_floating_point() || parameter.is_sparse()) {
            throw std::invalid_argument("OffloadedAdamW: parameters must be dense floating point");
        }
        staging_offsets_.push_back(parameter_count_);
        parameter_count_ += parameter.numel();
    }

    torch::NoGradGuard no_grad;
    for (const torch::Tensor &parameter : parameters_) {
        host_parameters_.push_back(parameter.detach().to(torch::kCPU, torch::kFloat,
                                                         /*non_blocking=*/false,
                                                         /*copy=*/true));
    }
    // FusedAdamW moves the host copies into its own buffer; host_parameters_ follow (set_).
    host_ = std::make_unique<FusedAdamW>(host_parameters_, options);
    pinned_ = device.is_cuda();
    staging_ = torch::empty({parameter_count_},
                            torch::TensorOptions().dtype(torch::kFloat).pinned_memory(pinned_));
}

std::unique_ptr<OffloadedAdamW> OffloadedAdamW::fromFusedAdamW(FusedAdamW &source) {
    auto result = std::make_unique<OffloadedAdamW>(source.parameters(), source.options());
    torch::NoGradGuard no_grad;
    FusedAdamW &host = *result->host_;
    for (std::size_t index = 0; index < source.parameters().size(); ++index) {
        host.expAvgOf(index).copy_(source.expAvgOf(index));
        host.expAvgSqOf(index).copy_(source.expAvgSqOf(index));
    }
    host.stepCounts() = source.stepCounts();
    return result;
}

torch::Tensor OffloadedAdamW::stagingOf(std::size_t index) const {
    const torch::Tensor &parameter = parameters_[index];
    return staging_.narrow(0, staging_offsets_[index], parameter.numel()).view(parameter.sizes());
}

double OffloadedAdamW::clipGradNorm(double max_norm) {
    const double norm = gradientNorm(parameters_);
    pending_grad_scale_ = std::min(1.0, max_norm / (norm + 1e-6));
    return norm;
}

void OffloadedAdamW::step() {
    torch::NoGradGuard no_grad;
    std::vector<std::size_t> updated;
    for (std::size_t index = 0; index < parameters_.size(); ++index) {
        const torch::Tensor &grad = parameters_[index].grad();
        torch::Tensor &host_parameter = host_parameters_[index];
        if (!grad.defined()) {
            host_parameter.mutable_grad().reset();
            continue;
        }
        torch::Tensor slot = stagingOf(index);
        slot.copy_(grad.detach(), /*non_blocking=*/pinned_);
        host_parameter.mutable_grad() = slot;
        updated.push_back(index);
    }
    if (pinned_) {
        torch::cuda::synchronize();
    }
    if (pending_grad_scale_ != 1.0) {
        for (std::size_t index : updated) {
            host_parameters_[index].mutable_grad().mul_(pending_grad_scale_);
        }
    }
    host_->step();
    for (std::size_t index : updated) {
        host_parameters_[index].mutable_grad().reset();
    }
    copyParametersToDevice(updated);
    pending_grad_scale_ = 1.0;
}

void OffloadedAdamW::copyParametersToDevice(const std::vector<std::size_t> &indices) {
    torch::NoGradGuard no_grad;
    for (std::size_t index : indices) {
        if (pinned_) {
            // Through the pinned buffer, so the host-to-device copy runs asynchronously.
            torch::Tensor slot = stagingOf(index);
            slot.copy_(host_parameters_[index]);
            parameters_[index].copy_(slot, /*non_blocking=*/true);
        } else {
            parameters_[index].copy_(host_parameters_[index]);
        }
    }
    if (pinned_) {
        // The staging buffer is reused by the next step: the copies must be done.
        torch::cuda::synchronize();
    }
}

void OffloadedAdamW::zeroGrad() {
    for (torch::Tensor &parameter : parameters_) {
        parameter.mutable_grad().reset();
    }
    for (torch::Tensor &parameter : host_parameters_) {
        parameter.mutable_grad().reset();
    }
    pending_grad_scale_ = 1.0;
}

std::uint64_t OffloadedAdamW::stateBytes() const {
    return host_->stateBytes() + static_cast<std::uint64_t>(host_->flatParameters().nbytes()) +
           static_cast<std::uint64_t>(staging_.nbytes());
}

void OffloadedAdamW::saveState(torch::serialize::OutputArchive &archive) {
    std::vector<std::int64_t> numels;
    for (const torch::Tensor &parameter : parameters_) {
        numels.push_back(parameter.numel());
    }
    archive.write("numels", torch::tensor(numels, torch::kInt64));
    // The master copy is finer than the device parameters when those are bf16 or fp16.
    archive.write("master_parameters", host_->flatParameters());
    host_->saveState(archive);
}

void OffloadedAdamW::loadState(torch::serialize::InputArchive &archive) {
    const torch::Tensor numels = readStateEntry(archive, "numels", "offloaded AdamW state")
                                     .to(torch::kCPU)
                                     .to(torch::kInt64);
    if (numels.numel() != static_cast<std::int64_t>(parameters_.size())) {
        throw std::runtime_error("the offloaded AdamW state covers " +
                                 std::to_string(numels.numel()) + " parameters, this model has " +
                                 std::to_string(parameters_.size()));
    }
    for (std::size_t index = 0; index < parameters_.size(); ++index) {
        const std::int64_t saved = numels[static_cast<std::int64_t>(index)].item<std::int64_t>();
        if (saved != parameters_[index].numel()) {
            throw std::runtime_error("parameter " + std::to_string(index) + " has " +
                                     std::to_string(saved) +
                                     " elements in the offloaded AdamW state, " +
                                     std::to_string(parameters_[index].numel()) + " in this model");
        }
    }
    const torch::Tensor master =
        readStateEntry(archive, "master_parameters", "offloaded AdamW state");
    if (master.numel() != host_->flatParameters().numel()) {
        throw std::runtime_error("the offloaded AdamW state's master copy holds " +
                                 std::to_string(master.numel()) + " values, this model needs " +
                                 std::to_string(host_->flatParameters().numel()));
    }
    host_->loadState(archive);
    torch::NoGradGuard no_grad;
    // flatParameters() is the buffer behind the master copies.
    torch::Tensor flat = host_->flatParameters();
    flat.copy_(master);
    std::vector<std::size_t> all(parameters_.size());
    for (std::size_t index = 0; index < all.size(); ++index) {
        all[index] = index;
    }
    copyParametersToDevice(all);
}

std::vector<torch::Tensor> OffloadedAdamW::parameterState(std::size_t index) const {
    std::vector<torch::Tensor> state = host_->parameterState(index);
    state.insert(state.begin(), host_parameters_.at(index).view({-1}));
    return state;
}

void OffloadedAdamW::setParameterState(std::size_t index, const std::vector<torch::Tensor> &state) {
    host_->stepCounts().at(index) =
        restoreParameterState(parameterState(index), state, kind(), index);
    copyParametersToDevice({index});
}

} // namespace headroom::train
