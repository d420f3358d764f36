#include "optim/loss_scaler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

namespace headroom::train {

namespace {

constexpr const char *kScaleKey = "loss_scaler.scale";
constexpr const char *kGrowthTrackerKey = "loss_scaler.growth_tracker";
constexpr const char *kSkippedStepsKey = "loss_scaler.skipped_steps";

void validate(const LossScalerOptions &options) {
    if (!(std::isfinite(options.init_scale()) && options.init_scale() > 0)) {
        throw std::invalid_argument(
            "loss scaler option init_scale must be a positive number, got " +
            std::to_string(options.init_scale()));
    }
    if (!(std::isfinite(options.growth_factor()) && options.growth_factor() > 1)) {
        throw std::invalid_argument(
            "loss scaler option growth_factor must be greater than 1, got " +
            std::to_string(options.growth_factor()));
    }
    if (!(options.backoff_factor() > 0 && options.backoff_factor() < 1)) {
        throw std::invalid_argument("loss scaler option backoff_factor must be in (0, 1), got " +
                                    std::to_string(options.backoff_factor()));
    }
    if (options.growth_interval() < 1) {
        throw std::invalid_argument("loss scaler option growth_interval must be at least 1, got " +
                                    std::to_string(options.growth_interval()));
    }
}

// Fused CUDA kernel per (device, dtype) group, as torch.cuda.amp.GradScaler does. Returns a
// one-element float tensor per group, non-zero when the group had an inf or NaN.
std::vector<torch::Tensor> unscaleOnCuda(const std::vector<torch::Tensor> &gradients,
                                         float inverse_scale) {
    // Key: (CUDA device index, dtype).
    std::map<std::pair<int, int>, std::vector<torch::Tensor>> groups;
    for (const torch::Tensor &gradient : gradients) {
        groups[{gradient.get_device(), static_cast<int>(gradient.scalar_type())}].push_back(
            gradient);
    }
    std::vector<torch::Tensor> found;
    for (const auto &entry : groups) {
        const std::vector<torch::Tensor> &group = entry.second;
        const auto options =
            torch::TensorOptions().dtype(torch::kFloat).device(group.front().device());
        torch::Tensor found_inf = torch::zeros({1}, options);
        const torch::Tensor inverse = torch::full({1}, inverse_scale, options);
        at::_amp_foreach_non_finite_check_and_unscale_(group, found_inf, inverse);
        found.push_back(found_inf);
    }
    return found;
}

// Same semantics with plain tensor ops, for devices without the fused kernel. Returns a bool
// scalar tensor, true when any gradient had an inf or NaN.
torch::Tensor unscaleWithTensorOps(const std::vector<torch::Tensor> &gradients,
                                   float inverse_scale) {
    torch::Tensor any_non_finite;
    for (const torch::Tensor &gradient : gradients) {
        const torch::Tensor non_finite = torch::isfinite(gradient).all().logical_not().cpu();
        any_non_finite =
            any_non_finite.defined() ? any_non_finite.logical_or(non_finite) : non_finite;
        gradient.mul_(inverse_scale);
    }
    return any_non_finite;
}

std::int64_t readInteger(torch::serialize::InputArchive &archive, const char *key) {
    torch::Tensor value;
    if (!archive.try_read(key, value)) {
        throw std::runtime_error(std::string("loss scaler state: missing key ") + key);
    }
    if (value.numel() != 1 || value.scalar_type() != torch::kLong) {
        throw std::runtime_error(std::string("loss scaler state: ") + key +
                                 " must be one int64 value");
    }
    return value.item<std::int64_t>();
}

} // namespace

DynamicLossScaler::DynamicLossScaler(LossScalerOptions options)
    : options_(std::move(options)), scale_(options_.init_scale()) {
    validate(options_);
}

torch::Tensor DynamicLossScaler::scale(const torch::Tensor &loss) const {
    if (!options_.enabled()) {
        return loss;
    }
    // A scaled fp16 loss would overflow at once (fp16 ends at 65504); compute it in fp32.
    const bool reduced =
        loss.scalar_type() == torch::kHalf || loss.scalar_type() == torch::kBFloat16;
    return (reduced ? loss.to(torch::kFloat) : loss) * scale_;
}

bool DynamicLossScaler::unscaleAndCheck(const std::vector<torch::Tensor> &parameters) {
    if (!options_.enabled()) {
        return true;
    }
    if (unscaled_since_update_) {
        throw std::logic_error("DynamicLossScaler::unscaleAndCheck called twice without update() "
                               "in between: the gradients would be divided by the scale twice");
    }
    std::vector<torch::Tensor> on_cuda;
    std::vector<torch::Tensor> elsewhere;
    for (std::size_t index = 0; index < parameters.size(); ++index) {
        const torch::Tensor &gradient = parameters[index].grad();
        if (!gradient.defined()) {
            continue;
        }
        if (gradient.is_sparse()) {
            throw std::invalid_argument("DynamicLossScaler: parameter " + std::to_string(index) +
                                        " has a sparse gradient, which loss scaling does not "
                                        "support");
        }
        (gradient.is_cuda() ? on_cuda : elsewhere).push_back(gradient);
    }
    // Reciprocal in double, then fp32, as GradScaler does: exact for power-of-two scales.
    const auto inverse_scale = static_cast<float>(1.0 / scale_);
    bool found_inf = false;
    for (const torch::Tensor &found : unscaleOnCuda(on_cuda, inverse_scale)) {
        found_inf = found_inf || found.item<float>() != 0.0f;
    }
    const torch::Tensor any_non_finite = unscaleWithTensorOps(elsewhere, inverse_scale);
    if (any_non_finite.defined()) {
        found_inf = found_inf || any_non_finite.item<bool>();
    }
    unscaled_since_update_ = true;
    return !found_inf;
}

void DynamicLossScaler::update(bool found_inf) {
    unscaled_since_update_ = false;
    if (!options_.enabled()) {
        return;
    }
    if (found_inf) {
        // Never down to zero, which would make unscaling divide by zero.
        scale_ = std::max(scale_ * options_.backoff_factor(),
                          static_cast<double>(std::numeric_limits<float>::min()));
        growth_tracker_ = 0;
        ++skipped_steps_;
        return;
    }
    if (++growth_tracker_ >= options_.growth_interval()) {
        const double grown = scale_ * options_.growth_factor();
        if (grown <= static_cast<double>(std::numeric_limits<float>::max())) {
            scale_ = grown;
        }
        growth_tracker_ = 0;
    }
}

void DynamicLossScaler::save(torch::serialize::OutputArchive &archive) const {
    archive.write(kScaleKey, torch::scalar_tensor(scale_, torch::kDouble));
    archive.write(kGrowthTrackerKey, torch::scalar_tensor(growth_tracker_, torch::kLong));
    archive.write(kSkippedStepsKey, torch::scalar_tensor(skipped_steps_, torch::kLong));
}

void DynamicLossScaler::load(torch::serialize::InputArchive &archive) {
    torch::Tensor scale;
    if (!archive.try_read(kScaleKey, scale)) {
        throw std::runtime_error(std::string("loss scaler state: missing key ") + kScaleKey);
    }
    if (scale.numel() != 1 || scale.scalar_type() != torch::kDouble) {
        throw std::runtime_error(std::string("loss scaler state: ") + kScaleKey +
                                 " must be one float64 value");
    }
    const double loaded_scale = scale.item<double>();
    if (!(std::isfinite(loaded_scale) && loaded_scale > 0)) {
        throw std::runtime_error(std::string("loss scaler state: ") + kScaleKey +
                                 " must be a positive number, got " + std::to_string(loaded_scale));
    }
    const std::int64_t growth_tracker = readInteger(archive, kGrowthTrackerKey);
    const std::int64_t skipped_steps = readInteger(archive, kSkippedStepsKey);
    if (growth_tracker < 0 || skipped_steps < 0) {
        throw std::runtime_error("loss scaler state: negative step counts");
    }
    scale_ = loaded_scale;
    growth_tracker_ = growth_tracker;
    skipped_steps_ = skipped_steps;
    unscaled_since_update_ = false;
}

} // namespace headroom::train
