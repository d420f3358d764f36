#include "optim/adamw8bit.h"

#include "optim/adamw_kernels.h"
#include "optim/optimizer_support.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>

namespace headroom::train {

namespace {

using namespace adamw_kernels;

const char *const kStateName = "8-bit AdamW state";

// Work units (a block of a quantized parameter or a whole small parameter) per parallel task:
// about 16k elements, so both cores get work on models of a few hundred thousand parameters.
constexpr std::int64_t kGrainUnits = 64;

// p, m, v, g: [count], m and v fp32. The operation order is FusedAdamW's. Returns the largest
// |m| and v written (the absmax of the blocks about to be quantized).
std::pair<float, float> adamwUpdate(float *p, float *m, float *v, const float *g,
                                    std::int64_t count, const AdamWConstants &c) {
    std::int64_t i = 0;
    float m_absmax = 0.0f;
    float v_absmax = 0.0f;
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
    Float4 m_max = splat4(0.0f);
    Float4 v_max = splat4(0.0f);
    for (; i + 4 <= count; i += 4) {
        const Float4 grad = load4(g + i) * grad_scale;
        const Float4 m_i = load4(m + i) * beta1 + one_minus_beta1 * grad;
        const Float4 v_i = load4(v + i) * beta2 + one_minus_beta2 * grad * grad;
        const Float4 denom = sqrt4(v_i) / bias2_sqrt + eps;
        store4(m + i, m_i);
        store4(v + i, v_i);
        store4(p + i, load4(p + i) * decay + neg_step * m_i / denom);
        m_max = max4(m_max, abs4(m_i));
        v_max = max4(v_max, v_i);
    }
    m_absmax = horizontalMax4(m_max);
    v_absmax = horizontalMax4(v_max);
#endif
    for (; i < count; ++i) {
        const float grad = g[i] * c.grad_scale;
        const float m_i = m[i] * c.beta1 + c.one_minus_beta1 * grad;
        const float v_i = v[i] * c.beta2 + c.one_minus_beta2 * grad * grad;
        const float denom = std::sqrt(v_i) / c.bias2_sqrt + c.eps;
        m[i] = m_i;
        v[i] = v_i;
        p[i] = p[i] * c.decay + c.neg_step_size * m_i / denom;
        m_absmax = std::max(m_absmax, std::abs(m_i));
        v_absmax = std::max(v_absmax, v_i);
    }
    return {m_absmax, v_absmax};
}

// One parameter's share of a fused step.
struct Work {
    std::int64_t unit_begin = 0; // first unit of this parameter in the step's unit range
    std::int64_t units = 0;      // its blocks when quantized, 1 otherwise
    std::int64_t numel = 0;
    bool quantized = false;
    float *param = nullptr;
    const float *grad = nullptr;
    std::uint8_t *exp_avg_codes = nullptr; // or the fp32 moments when not quantized
    std::uint8_t *exp_avg_sq_codes = nullptr;
    float *exp_avg_absmax = nullptr;
    float *exp_avg_sq_absmax = nullptr;
    float *exp_avg = nullptr;
    float *exp_avg_sq = nullptr;
    float neg_step_size = 0;
    float bias2_sqrt = 1;
};

// Dequantize, update in fp32, quantize again: one block of a quantized parameter.
void updateBlock(const Work &work, std::int64_t block, const AdamWConstants &constants) {
    const DynamicCodeMap &first_map = DynamicCodeMap::signedMap();
    const DynamicCodeMap &second_map = DynamicCodeMap::unsignedMap();
    const std::int64_t first = block * kQuantizationBlock;
    const std::int64_t count = std::min(kQuantizationBlock, work.numel - first);
    float m[kQuantizationBlock];
    float v[kQuantizationBlock];
    dequantizeBlock(work.exp_avg_codes + first, work.exp_avg_absmax[block], count, first_map, m);
    dequantizeBlock(work.exp_avg_sq_codes + first, work.exp_avg_sq_absmax[block], count, second_map,
                    v);
    const auto [m_absmax, v_absmax] =
        adamwUpdate(work.param + first, m, v, work.grad + first, count, constants);
    encodeBlock(m, count, m_absmax, first_map, work.exp_avg_codes + first);
    encodeBlock(v, count, v_absmax, second_map, work.exp_avg_sq_codes + first);
    work.exp_avg_absmax[block] = m_absmax;
    work.exp_avg_sq_absmax[block] = v_absmax;
}

void checkEntrySize(const std::string &key, const torch::Tensor &saved,
                    const torch::Tensor &expected) {
    if (saved.numel() != expected.numel() || saved.scalar_type() != expected.scalar_type()) {
        throw std::runtime_error(
            "the 8-bit AdamW state's '" + key + "' holds " + std::to_string(saved.numel()) + " " +
            c10::toString(saved.scalar_type()) + " values, this model needs " +
            std::to_string(expected.numel()) + " " + c10::toString(expected.scalar_type()));
    }
}

} // namespace

AdamW8bit::AdamW8bit(const std::vector<torch::Tensor> &parameters, AdamWOptions options)
    : options_(options) {
    parameters_ = uniqueParameters(parameters, "AdamW8bit");
    const torch::Tensor &front = parameters_.front();
    std::int64_t code_elements = 0;
    std::int64_t blocks = 0;
    std::int64_t small_elements = 0;
    for (const torch::Tensor &parameter : parameters_) {
        if (parameter.device() != front.device() ||
            parameter.scalar_type() != front.scalar_type()) {
            throw std::invalid_argument(
                "AdamW8bit: all parameters must share one device and dtype (found " +
                parameter.device().str() + " " + c10::toString(parameter.scalar_type()) +
                " next to " + front.device().str() + " " + c10::toString(front.scalar_type()) +
                ")");
        }
        if (!parameter.is_floating_point() || parameter.is_sparse()) {
            throw std::invalid_argument("AdamW8bit: parameters must be dense floating point");
        }
        Slot slot;
        slot.numel = parameter.numel();
        slot.quantized = slot.numel >= kMinQuantizedElements;
        if (slot.quantized) {
            slot.offset = code_elements;
            slot.block_offset = blocks;
            blocks += quantizationBlocks(slot.numel);
            code_elements = blocks * kQuantizationBlock;
        } else {
            slot.offset = small_elements;
            small_elements += slot.numel;
        }
        slots_.push_back(slot);
        parameter_count_ += slot.numel;
    }
    steps_.assign(parameters_.size(), 0);

    const torch::TensorOptions on_device = torch::TensorOptions().device(front.device());
    const DynamicCodeMap &first_map = DynamicCodeMap::signedMap();
    const DynamicCodeMap &second_map = DynamicCodeMap::unsignedMap();
    exp_avg_codes_ =
        torch::full({code_elements}, first_map.zeroCode(), on_device.dtype(torch::kUInt8));
    exp_avg_sq_codes_ =
        torch::full({code_elements}, second_map.zeroCode(), on_device.dtype(torch::kUInt8));
    exp_avg_absmax_ = torch::zeros({blocks}, on_device.dtype(torch::kFloat));
    exp_avg_sq_absmax_ = torch::zeros({blocks}, on_device.dtype(torch::kFloat));
    small_exp_avg_ = torch::zeros({small_elements}, on_device.dtype(torch::kFloat));
    small_exp_avg_sq_ = torch::zeros({small_elements}, on_device.dtype(torch::kFloat));
}

std::unique_ptr<AdamW8bit> AdamW8bit::fromFusedAdamW(FusedAdamW &source) {
    auto result = std::make_unique<AdamW8bit>(source.parameters(), source.options());
    for (std::size_t index = 0; index < source.parameters().size(); ++index) {
        result->setMoments(index, source.expAvgOf(index), source.expAvgSqOf(index));
    }
    result->steps_ = source.stepCounts();
    return result;
}

torch::Tensor AdamW8bit::codesOf(const torch::Tensor &buffer, const Slot &slot) const {
    return buffer.narrow(0, slot.offset, quantizationBlocks(slot.numel) * kQuantizationBlock);
}

torch::Tensor AdamW8bit::absmaxOf(const torch::Tensor &buffer, const Slot &slot) const {
    return buffer.narrow(0, slot.block_offset, quantizationBlocks(slot.numel));
}

torch::Tensor AdamW8bit::expAvgOf(std::size_t index) const {
    const Slot &slot = slots_.at(index);
    const torch::IntArrayRef shape = parameters_[index].sizes();
    if (!slot.quantized) {
        return small_exp_avg_.narrow(0, slot.offset, slot.numel).view(shape);
    }
    return dequantizeBlockwise(codesOf(exp_avg_codes_, slot), absmaxOf(exp_avg_absmax_, slot),
                               slot.numel, DynamicCodeMap::signedMap())
        .view(shape);
}

torch::Tensor AdamW8bit::expAvgSqOf(std::size_t index) const {
    const Slot &slot = slots_.at(index);
    const torch::IntArrayRef shape = parameters_[index].sizes();
    if (!slot.quantized) {
        return small_exp_avg_sq_.narrow(0, slot.offset, slot.numel).view(shape);
    }
    return dequantizeBlockwise(codesOf(exp_avg_sq_codes_, slot), absmaxOf(exp_avg_sq_absmax_, slot),
                               slot.numel, DynamicCodeMap::unsignedMap())
        .view(shape);
}

void AdamW8bit::setMoments(std::size_t index, const torch::Tensor &exp_avg,
                           const torch::Tensor &exp_avg_sq) {
    const Slot &slot = slots_.at(index);
    if (exp_avg.numel() != slot.numel || exp_avg_sq.numel() != slot.numel) {
        throw std::invalid_argument("AdamW8bit::setMoments: moments of " +
                                    std::to_string(exp_avg.numel()) +
                                    " elements for a parameter of " + std::to_string(slot.numel));
    }
    torch::NoGradGuard no_grad;
    const torch::Device device = parameters_[index].device();
    if (!slot.quantized) {
        small_exp_avg_.narrow(0, slot.offset, slot.numel).copy_(exp_avg.reshape({-1}));
        small_exp_avg_sq_.narrow(0, slot.offset, slot.numel).copy_(exp_avg_sq.reshape({-1}));
        return;
    }
    torch::Tensor codes = codesOf(exp_avg_codes_, slot);
    torch::Tensor absmax = absmaxOf(exp_avg_absmax_, slot);
    quantizeInto(exp_avg.to(device), DynamicCodeMap::signedMap(), codes, absmax);
    codes = codesOf(exp_avg_sq_codes_, slot);
    absmax = absmaxOf(exp_avg_sq_absmax_, slot);
    quantizeInto(exp_avg_sq.to(device), DynamicCodeMap::unsignedMap(), codes, absmax);
}

double AdamW8bit::clipGradNorm(double max_norm) {
    const double norm = gradientNorm(parameters_);
    pending_grad_scale_ = std::min(1.0, max_norm / (norm + 1e-6));
    return norm;
}

void AdamW8bit::zeroGrad() {
    for (torch::Tensor &parameter : parameters_) {
        parameter.mutable_grad().reset();
    }
    pending_grad_scale_ = 1.0;
}

bool AdamW8bit::fusedCpuPath() const {
    return std::all_of(parameters_.begin(), parameters_.end(), [](const torch::Tensor &p) {
        return p.device().is_cpu() && p.scalar_type() == torch::kFloat && p.is_contiguous();
    });
}

void AdamW8bit::step() {
    torch::NoGradGuard no_grad;
    if (fusedCpuPath()) {
        stepFusedCpu();
    } else {
        stepGeneric();
    }
    pending_grad_scale_ = 1.0;
}

void AdamW8bit::stepFusedCpu() {
    std::vector<Work> works;
    std::vector<torch::Tensor> keep_alive;
    std::int64_t units = 0;
    for (std::size_t index = 0; index < parameters_.size(); ++index) {
        const torch::Tensor &grad = parameters_[index].grad();
        if (!grad.defined()) {
            continue;
        }
        if (grad.is_sparse() || grad.scalar_type() != torch::kFloat) {
            throw std::invalid_argument("AdamW8bit: gradients must be dense float32 on CPU");
        }
        keep_alive.push_back(grad.contiguous());
        const Slot &slot = slots_[index];
        const double step = static_cast<double>(++steps_[index]);
        Work work;
        work.unit_begin = units;
        work.units = slot.quantized ? quantizationBlocks(slot.numel) : 1;
        work.numel = slot.numel;
        work.quantized = slot.quantized;
        work.param = parameters_[index].data_ptr<float>();
        work.grad = keep_alive.back().data_ptr<float>();
        if (slot.quantized) {
            work.exp_avg_codes = exp_avg_codes_.data_ptr<std::uint8_t>() + slot.offset;
            work.exp_avg_sq_codes = exp_avg_sq_codes_.data_ptr<std::uint8_t>() + slot.offset;
            work.exp_avg_absmax = exp_avg_absmax_.data_ptr<float>() + slot.block_offset;
            work.exp_avg_sq_absmax = exp_avg_sq_absmax_.data_ptr<float>() + slot.block_offset;
        } else {
            work.exp_avg = small_exp_avg_.data_ptr<float>() + slot.offset;
            work.exp_avg_sq = small_exp_avg_sq_.data_ptr<float>() + slot.offset;
        }
        work.neg_step_size =
            static_cast<float>(-options_.lr() / (1.0 - std::pow(options_.beta1(), step)));
        work.bias2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(options_.beta2(), step)));
        works.push_back(work);
        units += work.units;
    }
    AdamWConstants constants{};
    constants.decay = static_cast<float>(1.0 - options_.lr() * options_.weight_decay());
    constants.beta1 = static_cast<float>(options_.beta1());
    constants.beta2 = static_cast<float>(options_.beta2());
    constants.one_minus_beta1 = static_cast<float>(1.0 - options_.beta1());
    constants.one_minus_beta2 = static_cast<float>(1.0 - options_.beta2());
    constants.eps = static_cast<float>(options_.eps());
    constants.grad_scale = static_cast<float>(pending_grad_scale_);

    at::parallel_for(0, units, kGrainUnits, [&](std::int64_t begin, std::int64_t end) {
        auto work =
            std::upper_bound(works.begin(), works.end(), begin,
                             [](std::int64_t unit, const Work &w) { return unit < w.unit_begin; });
        --work; // works.front().unit_begin == 0 <= begin
        for (std::int64_t unit = begin; unit < end; ++unit) {
            while (unit >= work->unit_begin + work->units) {
                ++work;
            }
            AdamWConstants c = constants;
            c.neg_step_size = work->neg_step_size;
            c.bias2_sqrt = work->bias2_sqrt;
            if (work->quantized) {
                updateBlock(*work, unit - work->unit_begin, c);
            } else {
                adamwUpdate(work->param, work->exp_avg, work->exp_avg_sq, work->grad, work->numel,
                            c);
            }
        }
    });
}

void AdamW8bit::stepGeneric() {
    for (std::size_t index = 0; index < parameters_.size(); ++index) {
        torch::Tensor &parameter = parameters_[index];
        if (!parameter.grad().defined()) {
            continue;
        }
        const Slot &slot = slots_[index];
        torch::Tensor grad = parameter.grad().detach().to(torch::kFloat);
        if (pending_grad_scale_ != 1.0) {
            grad = grad * pending_grad_scale_;
        }
        // Views of the fp32 state for small parameters, dequantized copies otherwise.
        torch::Tensor m = expAvgOf(index);
        torch::Tensor v = expAvgSqOf(index);
        adamwTensorUpdate(parameter, m, v, grad, ++steps_[index], options_);
        if (slot.quantized) {
            setMoments(index, m, v);
        }
    }
}

std::uint64_t AdamW8bit::stateBytes() const {
    return static_cast<std::uint64_t>(exp_avg_codes_.nbytes() + exp_avg_sq_codes_.nbytes() +
                                      exp_avg_absmax_.nbytes() + exp_avg_sq_absmax_.nbytes() +
                                      small_exp_avg_.nbytes() + small_exp_avg_sq_.nbytes());
}

void AdamW8bit::saveState(torch::serialize::OutputArchive &archive) {
    std::vector<std::int64_t> numels;
    for (const Slot &slot : slots_) {
        numels.push_back(slot.numel);
    }
    archive.write("numels", torch::tensor(numels, torch::kInt64));
    archive.write("layout",
                  torch::tensor({kQuantizationBlock, kMinQuantizedElements}, torch::kInt64));
    archive.write("exp_avg_codes", exp_avg_codes_);
    archive.write("exp_avg_sq_codes", exp_avg_sq_codes_);
    archive.write("exp_avg_absmax", exp_avg_absmax_);
    archive.write("exp_avg_sq_absmax", exp_avg_sq_absmax_);
    archive.write("small_exp_avg", small_exp_avg_);
    archive.write("small_exp_avg_sq", small_exp_avg_sq_);
    archive.write("steps", torch::tensor(steps_, torch::kInt64));
}

void AdamW8bit::loadState(torch::serialize::InputArchive &archive) {
    const torch::Tensor layout =
        readStateEntry(archive, "layout", kStateName).to(torch::kCPU).to(torch::kInt64);
    if (layout.numel() != 2 || layout[0].item<std::int64_t>() != kQuantizationBlock ||
        layout[1].item<std::int64_t>() != kMinQuantizedElements) {
        throw std::runtime_error("the 8-bit AdamW state uses another block layout (block size, "
                                 "smallest quantized parameter) than this version");
    }
    const torch::Tensor numels =
        readStateEntry(archive, "numels", kStateName).to(torch::kCPU).to(torch::kInt64);
    if (numels.numel() != static_cast<std::int64_t>(slots_.size())) {
        throw std::runtime_error("the 8-bit AdamW state covers " + std::to_string(numels.numel()) +
                                 " parameters, this model has " + std::to_string(slots_.size()));
    }
    for (std::size_t index = 0; index < slots_.size(); ++index) {
        const std::int64_t saved = numels[static_cast<std::int64_t>(index)].item<std::int64_t>();
        if (saved != slots_[index].numel) {
            throw std::runtime_error("parameter " + std::to_string(index) + " has " +
                                     std::to_string(saved) +
                                     " elements in the 8-bit AdamW state, " +
                                     std::to_string(slots_[index].numel) + " in this model");
        }
    }
    const std::vector<std::pair<const char *, torch::Tensor *>> buffers = {
        {"exp_avg_codes", &exp_avg_codes_},   {"exp_avg_sq_codes", &exp_avg_sq_codes_},
        {"exp_avg_absmax", &exp_avg_absmax_}, {"exp_avg_sq_absmax", &exp_avg_sq_absmax_},
        {"small_exp_avg", &small_exp_avg_},   {"small_exp_avg_sq", &small_exp_avg_sq_}};
    std::vector<torch::Tensor> saved;
    for (const auto &[key, buffer] : buffers) {
        saved.push_back(readStateEntry(archive, key, kStateName));
        checkEntrySize(key, saved.back(), *buffer);
    }
    const torch::Tensor steps =
        readStateEntry(archive, "steps", kStateName).to(torch::kCPU).to(torch::kInt64);
    if (steps.numel() != static_cast<std::int64_t>(steps_.size())) {
        throw std::runtime_error("the 8-bit AdamW state has step counts for " +
                                 std::to_string(steps.numel()) + " parameters, this model has " +
                                 std::to_string(steps_.size()));
    }
    // Everything fits: only now overwrite the state.
    torch::NoGradGuard no_grad;
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        buffers[i].second->copy_(saved[i]);
    }
    const torch::Tensor counts = steps.contiguous();
    std::copy(counts.data_ptr<std::int64_t>(), counts.data_ptr<std::int64_t>() + counts.numel(),
              steps_.begin());
}

std::vector<torch::Tensor> AdamW8bit::parameterState(std::size_t index) const {
    const Slot &slot = slots_.at(index);
    const torch::Tensor steps = stepCountTensor(steps_[index]);
    if (!slot.quantized) {
        return {small_exp_avg_.narrow(0, slot.offset, slot.numel),
                small_exp_avg_sq_.narrow(0, slot.offset, slot.numel), steps};
    }
    return {codesOf(exp_avg_codes_, slot), absmaxOf(exp_avg_absmax_, slot),
            codesOf(exp_avg_sq_codes_, slot), absmaxOf(exp_avg_sq_absmax_, slot), steps};
}

void AdamW8bit::setParameterState(std::size_t index, const std::vector<torch::Tensor> &state) {
    steps_.at(index) = restoreParameterState(parameterState(index), state, kind(), index);
}

} // namespace headroom::train
