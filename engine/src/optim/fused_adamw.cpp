#include "optim/fused_adamw.h"

#include "optim/adamw_kernels.h"
#include "optim/optimizer_support.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_set>

namespace headroom::train {

namespace {

using namespace adamw_kernels;

// Parameters start on 64-byte boundaries (for fp32) inside the flat buffer.
constexpr std::int64_t kAlignElements = 16;
// Elements per parallel task: large enough to amortize scheduling, small enough that both
// cores get work on a model of a few hundred thousand parameters.
constexpr std::int64_t kGrainElements = 32768;

std::int64_t alignUp(std::int64_t value) {
    return (value + kAlignElements - 1) / kAlignElements * kAlignElements;
}

// p, m, v, g: [count]. The operation order is torch::optim::AdamW's (mul_, add_, addcmul_,
// sqrt / bias2_sqrt + eps, addcdiv_), so results agree to rounding.
void adamwSpan(float *p, float *m, float *v, const float *g, std::int64_t count,
               const AdamWConstants &c) {
    std::int64_t i = 0;
#if defined(HEADROOM_FLOAT4)
    const Float4 decay = splat4(c.decay);
    const Float4 beta1 = splat4(c.beta1);
    const Float4 beta2 = splat4(c.beta2);
    const Float4 one_minus_beta1 = splat4(c.one_minus_beta1);
    const Float4 one_minus_beta2 = splat4(c.one_minus_beta2);
    const Float4 eps = splat4(c.eps);
    const Float4 grad_scale = splat4(c.grad_scale);
    const Float4 neg_step = splat4(c.neg_step_size);
    const Float4 bias2_sqrt = splat4(c.bias2_sqrt);
    for (; i + 4 <= count; i += 4) {
        const Float4 grad = load4(g + i) * grad_scale;
        const Float4 m_i = load4(m + i) * beta1 + one_minus_beta1 * grad;
        const Float4 v_i = load4(v + i) * beta2 + one_minus_beta2 * grad * grad;
        const Float4 denom = sqrt4(v_i) / bias2_sqrt + eps;
        store4(m + i, m_i);
        store4(v + i, v_i);
        store4(p + i, load4(p + i) * decay + neg_step * m_i / denom);
    }
#endif
    for (; i < count; ++i) {
        const float grad = g[i] * c.grad_scale;
        const float m_i = m[i] * c.beta1 + c.one_minus_beta1 * grad;
        const float v_i = v[i] * c.beta2 + c.one_minus_beta2 * grad * grad;
        const float denom = std::sqrt(v_i) / c.bias2_sqrt + c.eps;
        m[i] = m_i;
        v[i] = v_i;
        p[i] = p[i] * c.decay + c.neg_step_size * m_i / denom;
    }
}

// Sum of squares, accumulated in float over short blocks and in double across blocks.
double sumSquares(const float *g, std::int64_t count) {
    constexpr std::int64_t kBlock = 1024;
    double total = 0;
    for (std::int64_t start = 0; start < count; start += kBlock) {
        const std::int64_t end = std::min(count, start + kBlock);
        std::int64_t i = start;
        float block = 0;
#if defined(HEADROOM_FLOAT4)
        Float4 a = splat4(0.0f);
        Float4 b = splat4(0.0f);
        for (; i + 8 <= end; i += 8) {
            const Float4 x = load4(g + i);
            const Float4 y = load4(g + i + 4);
            a = a + x * x;
            b = b + y * y;
        }
        block = sum4(a + b);
#endif
        for (; i < end; ++i) {
            block += g[i] * g[i];
        }
        total += block;
    }
    return total;
}

// One parameter's share of a fused step.
struct Segment {
    std::int64_t begin = 0; // flat index of its first element
    std::int64_t size = 0;
    const float *grad = nullptr;
    float step_size = 0;  // lr / (1 - beta1^t)
    float bias2_sqrt = 1; // sqrt(1 - beta2^t)
};

// Calls body(segment, first, last) for the part [first, last) of each segment that overlaps
// the flat range [begin, end). Segments are sorted by begin and do not overlap.
template <typename Body>
void forEachOverlap(const std::vector<Segment> &segments, std::int64_t begin, std::int64_t end,
                    Body &&body) {
    auto it =
        std::upper_bound(segments.begin(), segments.end(), begin,
                         [](std::int64_t value, const Segment &s) { return value < s.begin; });
    if (it != segments.begin()) {
        --it;
    }
    for (; it != segments.end() && it->begin < end; ++it) {
        const std::int64_t first = std::max(begin, it->begin);
        const std::int64_t last = std::min(end, it->begin + it->size);
        if (first < last) {
            body(*it, first - it->begin, last - it->begin);
        }
    }
}

} // namespace

FusedAdamW::FusedAdamW(const std::vector<torch::Tensor> &parameters, FusedAdamWOptions options)
    : options_(options) {
    parameters_ = uniqueParameters(parameters, "FusedAdamW");
    const torch::TensorOptions tensor_options = parameters_.front().options();
    for (const torch::Tensor &parameter : parameters_) {
        if (parameter.device() != tensor_options.device() ||
            parameter.scalar_type() != parameters_.front().scalar_type()) {
            throw std::invalid_argument(
                "FusedAdamW: all parameters must share one device and dtype (found " +
                parameter.device().str() + " " +
                std::string(c10::toString(parameter.scalar_type())) + " next to " +
                tensor_options.device().str() + " " +
                std::string(c10::toString(parameters_.front().scalar_type())) + ")");
        }
        if (!parameter.is_floating_point() || parameter.is_sparse()) {
            throw std::invalid_argument("FusedAdamW: parameters must be dense floating point");
        }
        offsets_.push_back(total_);
        total_ = alignUp(total_ + parameter.numel());
    }
    steps_.assign(parameters_.size(), 0);

    torch::NoGradGuard no_grad;
    flat_parameters_ = torch::zeros({total_}, tensor_options);
    for (std::size_t index = 0; index < parameters_.size(); ++index) {
        torch::Tensor &parameter = parameters_[index];
        torch::Tensor slot =
            flat_parameters_.narrow(0, offsets_[index], parameter.numel()).view(parameter.sizes());
        slot.copy_(parameter);
        // The same tensor object now lives in the buffer: modules see the change.
        parameter.set_(slot);
    }
    exp_avg_ = torch::zeros_like(flat_parameters_);
    exp_avg_sq_ = torch::zeros_like(flat_parameters_);
}

double FusedAdamW::clipGradNorm(double max_norm) {
    double sum_squares = 0;
    const bool fused =
        flat_parameters_.device().is_cpu() && flat_parameters_.scalar_type() == torch::kFloat;
    if (fused) {
        std::vector<Segment> segments;
        std::vector<torch::Tensor> keep_alive;
        for (std::size_t index = 0; index < parameters_.size(); ++index) {
            const torch::Tensor &grad = parameters_[index].grad();
            if (grad.defined()) {
                keep_alive.push_back(grad.contiguous());
                segments.push_back(
                    {offsets_[index], grad.numel(), keep_alive.back().data_ptr<float>()});
            }
        }
        sum_squares = at::parallel_reduce(
            0, total_, kGrainElements, 0.0,
            [&](std::int64_t begin, std::int64_t end, double partial) {
                forEachOverlap(segments, begin, end,
                               [&](const Segment &s, std::int64_t first, std::int64_t last) {
                                   partial += sumSquares(s.grad + first, last - first);
                               });
                return partial;
            },
            std::plus<double>());
    } else {
        for (const torch::Tensor &parameter : parameters_) {
            if (parameter.grad().defined()) {
                sum_squares +=
                    parameter.grad().detach().to(torch::kDouble).square().sum().item<double>();
            }
        }
    }
    const double norm = std::sqrt(sum_squares);
    pending_grad_scale_ = std::min(1.0, max_norm / (norm + 1e-6));
    return norm;
}

void FusedAdamW::step() {
    torch::NoGradGuard no_grad;
    if (flat_parameters_.device().is_cpu() && flat_parameters_.scalar_type() == torch::kFloat) {
        stepFusedCpu();
    } else {
        stepGeneric();
    }
    pending_grad_scale_ = 1.0;
}

void FusedAdamW::stepFusedCpu() {
    std::vector<Segment> segments;
    std::vector<torch::Tensor> keep_alive;
    segments.reserve(parameters_.size());
    for (std::size_t index = 0; index < parameters_.size(); ++index) {
        const torch::Tensor &grad = parameters_[index].grad();
        if (!grad.defined()) {
            continue;
        }
        if (grad.is_sparse() || grad.scalar_type() != torch::kFloat) {
            throw std::invalid_argument("FusedAdamW: gradients must be dense float32 on CPU");
        }
        keep_alive.push_back(grad.contiguous());
        const double step = static_cast<double>(++steps_[index]);
        Segment segment;
        segment.begin = offsets_[index];
        segment.size = grad.numel();
        segment.grad = keep_alive.back().data_ptr<float>();
        segment.step_size =
            static_cast<float>(options_.lr() / (1.0 - std::pow(options_.beta1(), step)));
        segment.bias2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(options_.beta2(), step)));
        segments.push_back(segment);
    }
    AdamWConstants constants{};
    constants.decay = static_cast<float>(1.0 - options_.lr() * options_.weight_decay());
    constants.beta1 = static_cast<float>(options_.beta1());
    constants.beta2 = static_cast<float>(options_.beta2());
    constants.one_minus_beta1 = static_cast<float>(1.0 - options_.beta1());
    constants.one_minus_beta2 = static_cast<float>(1.0 - options_.beta2());
    constants.eps = static_cast<float>(options_.eps());
    constants.grad_scale = static_cast<float>(pending_grad_scale_);
    float *param = flat_parameters_.data_ptr<float>();
    float *exp_avg = exp_avg_.data_ptr<float>();
    float *exp_avg_sq = exp_avg_sq_.data_ptr<float>();

    at::parallel_for(0, total_, kGrainElements, [&](std::int64_t begin, std::int64_t end) {
        forEachOverlap(segments, begin, end,
                       [&](const Segment &s, std::int64_t first, std::int64_t last) {
                           AdamWConstants segment_constants = constants;
                           segment_constants.neg_step_size = -s.step_size;
                           segment_constants.bias2_sqrt = s.bias2_sqrt;
                           const std::int64_t at = s.begin + first;
                           adamwSpan(param + at, exp_avg + at, exp_avg_sq + at, s.grad + first,
                                     last - first, segment_constants);
                       });
    });
}

void FusedAdamW::stepGeneric() {
    for (std::size_t index = 0; index < parameters_.size(); ++index) {
        torch::Tensor &parameter = parameters_[index];
        if (!parameter.grad().defined()) {
            continue;
        }
        torch::Tensor grad = parameter.grad();
        if (pending_grad_scale_ != 1.0) {
            grad = grad * pending_grad_scale_;
        }
        torch::Tensor m = expAvgOf(index);
        torch::Tensor v = expAvgSqOf(index);
        adamwTensorUpdate(parameter, m, v, grad, ++steps_[index], options_);
    }
}

torch::Tensor FusedAdamW::expAvgOf(std::size_t index) const {
    const torch::Tensor &parameter = parameters_.at(index);
    return exp_avg_.narrow(0, offsets_[index], parameter.numel()).view(parameter.sizes());
}

torch::Tensor FusedAdamW::expAvgSqOf(std::size_t index) const {
    const torch::Tensor &parameter = parameters_.at(index);
    return exp_avg_sq_.narrow(0, offsets_[index], parameter.numel()).view(parameter.sizes());
}

void FusedAdamW::zeroGrad() {
    for (torch::Tensor &parameter : parameters_) {
        parameter.mutable_grad().reset();
    }
    // A clip factor measured on gradients that are now gone must not scale the next ones.
    pending_grad_scale_ = 1.0;
}

std::uint64_t FusedAdamW::stateBytes() const {
    return static_cast<std::uint64_t>(exp_avg_.nbytes() + exp_avg_sq_.nbytes());
}

void FusedAdamW::saveState(torch::serialize::OutputArchive &archive) {
    archive.write("exp_avg", exp_avg_);
    archive.write("exp_avg_sq", exp_avg_sq_);
    archive.write("steps", torch::tensor(steps_, torch::kInt64));
}

void FusedAdamW::loadState(torch::serialize::InputArchive &archive) {
    torch::Tensor exp_avg, exp_avg_sq, steps;
    archive.read("exp_avg", exp_avg);
    archive.read("exp_avg_sq", exp_avg_sq);
    archive.read("steps", steps);
    if (exp_avg.numel() != exp_avg_.numel() || exp_avg_sq.numel() != exp_avg_sq_.numel() ||
        steps.numel() != static_cast<std::int64_t>(steps_.size())) {
        throw std::runtime_error("the optimizer state does not match the model");
    }
    torch::NoGradGuard no_grad;
    exp_avg_.copy_(exp_avg);
    exp_avg_sq_.copy_(exp_avg_sq);
    const torch::Tensor counts = steps.to(torch::kCPU).contiguous();
    const auto *values = counts.data_ptr<std::int64_t>();
    std::copy(values, values + counts.numel(), steps_.begin());
}

std::vector<torch::Tensor> FusedAdamW::parameterState(std::size_t index) const {
    return {expAvgOf(index).view({-1}), expAvgSqOf(index).view({-1}),
            stepCountTensor(steps_.at(index))};
}

void FusedAdamW::setParameterState(std::size_t index, const std::vector<torch::Tensor> &state) {
    steps_.at(index) = restoreParameterState(parameterState(index), state, kind(), index);
}

} // namespace headroom::train
