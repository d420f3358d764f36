#include "quant/base_quantization.h"

#include <ATen/Parallel.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HEADROOM_AVX2_DISPATCH 1
#endif

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace headroom::models {

namespace {

constexpr std::int64_t kHalfBlock = kNf4Block / 2;
constexpr std::int64_t kGrainElements = 1 << 16;

// Midpoints between neighbouring NF4 values: a value's code is how many lie at or below it.
const std::array<float, 15> &nf4Thresholds() {
    static const std::array<float, 15> thresholds = [] {
        std::array<float, 15> result{};
        for (std::size_t index = 0; index < result.size(); ++index) {
            result[index] = 0.5f * (nf4Values()[index] + nf4Values()[index + 1]);
        }
        return result;
    }();
    return thresholds;
}

float blockScale(const QuantizedWeight &weight, std::int64_t block) {
    const std::int64_t group = block / kNf4Group;
    return weight.group_offsets.data_ptr<float>()[group] +
           static_cast<float>(weight.scales.data_ptr<std::uint8_t>()[block]) *
               weight.group_steps.data_ptr<float>()[group];
}

void nf4BlocksScalar(const std::uint8_t *codes, float scale, float *out, std::int64_t count) {
    const std::array<float, 16> &values = nf4Values();
    for (std::int64_t j = 0; j < kHalfBlock; ++j) {
        if (j < count) {
            out[j] = values[codes[j] & 15u] * scale;
        }
        if (j + kHalfBlock < count) {
            out[j + kHalfBlock] = values[codes[j] >> 4u] * scale;
        }
    }
}

void int8RowScalar(const std::int8_t *codes, float step, float *out, std::int64_t count) {
    for (std::int64_t j = 0; j < count; ++j) {
        out[j] = static_cast<float>(codes[j]) * step;
    }
}

#if defined(HEADROOM_AVX2_DISPATCH)
bool hasAvx2() {
    static const bool has = __builtin_cpu_supports("avx2") != 0;
    return has;
}

// Eight codes (0..15) to their NF4 values: two in-register table lookups, chosen by bit 3.
__attribute__((target("avx2"))) inline __m256 nf4Lookup(__m256i codes, __m256 low_values,
                                                        __m256 high_values) {
    const __m256 low = _mm256_permutevar8x32_ps(low_values, codes);
    const __m256 high = _mm256_permutevar8x32_ps(high_values, codes);
    const __m256 use_high = _mm256_castsi256_ps(_mm256_slli_epi32(codes, 28));
    return _mm256_blendv_ps(low, high, use_high);
}

// A whole block of 64 weights.
__attribute__((target("avx2"))) void nf4BlockAvx2(const std::uint8_t *codes, float scale,
                                                  float *out) {
    const __m256 low_values = _mm256_loadu_ps(nf4Values().data());
    const __m256 high_values = _mm256_loadu_ps(nf4Values().data() + 8);
    const __m256 scales = _mm256_set1_ps(scale);
    const __m256i nibble = _mm256_set1_epi32(15);
    for (std::int64_t j = 0; j < kHalfBlock; j += 8) {
        const __m256i bytes =
            _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(codes + j)));
        const __m256i low = _mm256_and_si256(bytes, nibble);
        const __m256i high = _mm256_srli_epi32(bytes, 4);
        _mm256_storeu_ps(out + j, _mm256_mul_ps(nf4Lookup(low, low_values, high_values), scales));
        _mm256_storeu_ps(out + kHalfBlock + j,
                         _mm256_mul_ps(nf4Lookup(high, low_values, high_values), scales));
    }
}

__attribute__((target("avx2"))) void int8RowAvx2(const std::int8_t *codes, float step, float *out,
                                                 std::int64_t count) {
    const __m256 steps = _mm256_set1_ps(step);
    std::int64_t j = 0;
    for (; j + 8 <= count; j += 8) {
        const __m256i wide =
            _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(codes + j)));
        _mm256_storeu_ps(out + j, _mm256_mul_ps(_mm256_cvtepi32_ps(wide), steps));
    }
    int8RowScalar(codes + j, step, out + j, count - j);
}
#endif

// Elements [begin, end) of the flattened weight into out[0, end - begin), as float. begin is a
// multiple of the unit (a block for nf4, a row for int8).
void dequantizeRange(const QuantizedWeight &weight, std::int64_t begin, std::int64_t end,
                     float *out) {
    if (weight.format == BaseFormat::Int8) {
        const auto *codes = weight.codes.data_ptr<std::int8_t>();
        const float *steps = weight.scales.data_ptr<float>();
        for (std::int64_t at = begin; at < end; at += weight.in) {
            const std::int64_t row = at / weight.in;
#if defined(HEADROOM_AVX2_DISPATCH)
            if (hasAvx2()) {
                int8RowAvx2(codes + at, steps[row], out + (at - begin), weight.in);
                continue;
            }
#endif
            int8RowScalar(codes + at, steps[row], out + (at - begin), weight.in);
        }
        return;
    }
    const std::uint8_t *codes = weight.codes.data_ptr<std::uint8_t>();
    for (std::int64_t at = begin; at < end; at += kNf4Block) {
        const std::int64_t block = at / kNf4Block;
        const std::int64_t count = std::min(kNf4Block, end - at);
        const float scale = blockScale(weight, block);
#if defined(HEADROOM_AVX2_DISPATCH)
        if (count == kNf4Block && hasAvx2()) {
            nf4BlockAvx2(codes + block * kHalfBlock, scale, out + (at - begin));
            continue;
        }
#endif
        nf4BlocksScalar(codes + block * kHalfBlock, scale, out + (at - begin), count);
    }
}

template <typename Narrow> void narrowFrom(const float *in, std::int64_t count, Narrow *out) {
    for (std::int64_t index = 0; index < count; ++index) {
        out[index] = Narrow(in[index]);
    }
}

void dequantizeOnCpu(const QuantizedWeight &weight, torch::Tensor &out) {
    const std::int64_t total = weight.out * weight.in;
    const std::int64_t unit = weight.format == BaseFormat::Int8 ? weight.in : kNf4Block;
    const std::int64_t grain = std::max<std::int64_t>(1, kGrainElements / unit);
    const std::int64_t units = (total + unit - 1) / unit;
    const torch::ScalarType dtype = out.scalar_type();
    at::parallel_for(0, units, grain, [&](std::int64_t first, std::int64_t last) {
        const std::int64_t begin = first * unit;
        const std::int64_t end = std::min(total, last * unit);
        if (dtype == torch::kFloat) {
            dequantizeRange(weight, begin, end, out.data_ptr<float>() + begin);
            return;
        }
        std::vector<float> wide(static_cast<std::size_t>(std::min(end - begin, grain * unit)));
        for (std::int64_t at = begin; at < end; at += grain * unit) {
            const std::int64_t stop = std::min(end, at + grain * unit);
            dequantizeRange(weight, at, stop, wide.data());
            if (dtype == torch::kBFloat16) {
                narrowFrom(wide.data(), stop - at, out.data_ptr<c10::BFloat16>() + at);
            } else {
                narrowFrom(wide.data(), stop - at, out.data_ptr<c10::Half>() + at);
            }
        }
    });
}

// Rounds half to even, as torch::round does, for |value| < 2^22: adding and removing 1.5 x 2^23
// leaves no fraction bits, and the addition rounds in the default mode. Vectorizes where
// std::nearbyint is a library call per value (x86-64 without SSE4.1).
float roundHalfEven(float value) {
    constexpr float kShift = 12582912.0f;
    return (value + kShift) - kShift;
}

// One pass per row, as torch::round(w / (absmax / 127)) clamped to [-127, 127] computes it,
// without the five whole-tensor passes.
QuantizedWeight quantizeInt8(const torch::Tensor &weight) {
    QuantizedWeight result;
    result.format = BaseFormat::Int8;
    result.out = weight.size(0);
    result.in = weight.size(1);
    result.scales = torch::empty({result.out}, torch::kFloat);
    result.codes = torch::empty({result.out, result.in}, torch::kInt8);
    const float *values = weight.data_ptr<float>();
    float *steps = result.scales.data_ptr<float>();
    std::int8_t *codes = result.codes.data_ptr<std::int8_t>();
    const std::int64_t in = result.in;
    at::parallel_for(0, result.out,
                     std::max<std::int64_t>(1, kGrainElements / std::max<std::int64_t>(1, in)),
                     [&](std::int64_t first, std::int64_t last) {
                         for (std::int64_t row = first; row < last; ++row) {
                             const float *source = values + row * in;
                             float largest = 0;
                             for (std::int64_t j = 0; j < in; ++j) {
                                 largest = std::max(largest, std::fabs(source[j]));
                             }
                             const float step = largest / 127.0f;
                             steps[row] = step;
                             const float divisor = std::max(step, 1e-30f);
                             for (std::int64_t j = 0; j < in; ++j) {
                                 codes[row * in + j] = static_cast<std::int8_t>(roundHalfEven(
                                     std::clamp(source[j] / divisor, -127.0f, 127.0f)));
                             }
                         }
                     });
    return result;
}

// Each group's block absmaxes as 8-bit codes between the group's smallest and largest, rounded
// up: a block's reconstructed scale is never below its absmax, so normalized weights stay
// within [-1, 1].
void quantizeBlockScales(const std::vector<float> &absmax, QuantizedWeight &result) {
    const auto blocks = static_cast<std::int64_t>(absmax.size());
    const std::int64_t groups = (blocks + kNf4Group - 1) / kNf4Group;
    result.scales = torch::empty({blocks}, torch::kUInt8);
    result.group_offsets = torch::empty({groups}, torch::kFloat);
    result.group_steps = torch::empty({groups}, torch::kFloat);
    auto *codes = result.scales.data_ptr<std::uint8_t>();
    float *offsets = result.group_offsets.data_ptr<float>();
    float *steps = result.group_steps.data_ptr<float>();
    for (std::int64_t group = 0; group < groups; ++group) {
        const auto first = absmax.begin() + group * kNf4Group;
        const auto last = absmax.begin() + std::min(blocks, (group + 1) * kNf4Group);
        const auto [smallest, largest] = std::minmax_element(first, last);
        const float offset = *smallest;
        const float step = (*largest - *smallest) / 255.0f;
        offsets[group] = offset;
        steps[group] = step;
        for (auto value = first; value != last; ++value) {
            const std::int64_t block = value - absmax.begin();
            int code = step > 0 ? static_cast<int>(std::ceil((*value - offset) / step)) : 0;
            code = std::clamp(code, 0, 255);
            while (code < 255 && offset + static_cast<float>(code) * step < *value) {
                ++code;
            }
            codes[block] = static_cast<std::uint8_t>(code);
        }
    }
}

QuantizedWeight quantizeNf4(const torch::Tensor &weight) {
    QuantizedWeight result;
    result.format = BaseFormat::Nf4;
    result.out = weight.size(0);
    result.in = weight.size(1);
    const torch::Tensor flat = weight.to(torch::kFloat).contiguous().view({-1});
    const float *values = flat.data_ptr<float>();
    const std::int64_t total = flat.numel();
    const std::int64_t blocks = (total + kNf4Block - 1) / kNf4Block;
    std::vector<float> absmax(static_cast<std::size_t>(blocks));
    at::parallel_for(0, blocks, 1024, [&](std::int64_t first, std::int64_t last) {
        for (std::int64_t block = first; block < last; ++block) {
            float largest = 0;
            for (std::int64_t at = block * kNf4Block; at < std::min(total, (block + 1) * kNf4Block);
                 ++at) {
                largest = std::max(largest, std::fabs(values[at]));
            }
            absmax[static_cast<std::size_t>(block)] = largest;
        }
    });
    quantizeBlockScales(absmax, result);
    result.codes = torch::zeros({blocks, kHalfBlock}, torch::kUInt8);
    std::uint8_t *codes = result.codes.data_ptr<std::uint8_t>();
    at::parallel_for(0, blocks, 1024, [&](std::int64_t first, std::int64_t last) {
        const std::array<float, 15> &thresholds = nf4Thresholds();
        float normalized[kNf4Block];
        std::uint8_t nearest[kNf4Block];
        for (std::int64_t block = first; block < last; ++block) {
            const float scale = blockScale(result, block);
            const float inverse = scale > 0 ? 1.0f / scale : 0.0f;
            const std::int64_t begin = block * kNf4Block;
            for (std::int64_t j = 0; j < kNf4Block; ++j) {
                normalized[j] = begin + j < total ? values[begin + j] * inverse : 0.0f;
            }
            // The thresholds at or below each value, counted without branches (vectorized; a
            // binary search per weight made quantizing the slowest part of an nf4 import).
            for (std::int64_t j = 0; j < kNf4Block; ++j) {
                int below = 0;
                for (const float threshold : thresholds) {
                    below += static_cast<int>(threshold <= normalized[j]);
                }
                nearest[j] = static_cast<std::uint8_t>(below);
            }
            for (std::int64_t j = 0; j < kHalfBlock; ++j) {
                codes[block * kHalfBlock + j] =
                    static_cast<std::uint8_t>(nearest[j] | (nearest[j + kHalfBlock] << 4u));
            }
        }
    });
    return result;
}

} // namespace

const std::array<float, 16> &nf4Values() {
    // The quantiles of N(0, 1) normalized to [-1, 1] with an exact zero, as published with
    // QLoRA (eight negative and eight non-negative values).
    static const std::array<float, 16> values = {
        -1.0f,        -0.69619280f, -0.52507305f, -0.39491749f, -0.28444138f, -0.18477343f,
        -0.09105004f, 0.0f,         0.07958030f,  0.16093020f,  0.24611230f,  0.33791524f,
        0.44070983f,  0.56261700f,  0.72295684f,  1.0f};
    return values;
}

std::int64_t QuantizedWeight::bytes() const {
    std::int64_t total = 0;
    for (const torch::Tensor *tensor : {&codes, &scales, &group_offsets, &group_steps}) {
        if (tensor->defined()) {
            total += static_cast<std::int64_t>(tensor->nbytes());
        }
    }
    return total;
}

QuantizedWeight quantizeWeight(const torch::Tensor &weight, BaseFormat format) {
    if (weight.dim() != 2 || !weight.is_floating_point()) {
        throw std::invalid_argument("quantizeWeight needs a 2-D floating-point tensor");
    }
    if (!torch::isfinite(weight).all().item<bool>()) {
        throw std::invalid_argument("quantizeWeight: the weight holds NaN or infinite values");
    }
    if (!isQuantized(format)) {
        throw std::invalid_argument("quantizeWeight: " + baseFormatName(format) +
                                    " is not a quantized format");
    }
    torch::NoGradGuard no_grad;
    // Quantized on the CPU (a ladder rung may quantize a GPU-resident base), held where the
    // weight was.
    const torch::Tensor wide = weight.to(torch::kCPU, torch::kFloat).contiguous();
    QuantizedWeight result = format == BaseFormat::Int8 ? quantizeInt8(wide) : quantizeNf4(wide);
    if (!weight.device().is_cpu()) {
        for (torch::Tensor *tensor :
             {&result.codes, &result.scales, &result.group_offsets, &result.group_steps}) {
            if (tensor->defined()) {
                *tensor = tensor->to(weight.device());
            }
        }
    }
    return result;
}

void dequantizeInto(const QuantizedWeight &weight, torch::Tensor &out) {
    TORCH_CHECK(out.is_contiguous() && out.dim() == 2 && out.size(0) == weight.out &&
                    out.size(1) == weight.in,
                "dequantizeInto: out must be a contiguous [", weight.out, ", ", weight.in,
                "] tensor, got ", out.sizes());
    const torch::ScalarType dtype = out.scalar_type();
    TORCH_CHECK(dtype == torch::kFloat || dtype == torch::kBFloat16 || dtype == torch::kHalf,
                "dequantizeInto: float, bfloat16 or half output, got ", dtype);
    torch::NoGradGuard no_grad;
    if (!isQuantized(weight.format)) {
        out.copy_(weight.codes.view({weight.out, weight.in}));
    } else if (weight.codes.device().is_cpu()) {
        dequantizeOnCpu(weight, out);
    } else {
        out.copy_(dequantizeWithTensorOps(weight, dtype));
    }
}

torch::Tensor dequantize(const QuantizedWeight &weight, torch::ScalarType dtype) {
    torch::Tensor out = torch::empty({weight.out, weight.in},
                                     weight.codes.options().dtype(dtype).requires_grad(false));
    dequantizeInto(weight, out);
    return out;
}

torch::Tensor dequantizeWithTensorOps(const QuantizedWeight &weight, torch::ScalarType dtype) {
    torch::NoGradGuard no_grad;
    const torch::TensorOptions floats = weight.codes.options().dtype(torch::kFloat);
    if (!isQuantized(weight.format)) {
        return weight.codes.view({weight.out, weight.in}).to(dtype);
    }
    if (weight.format == BaseFormat::Int8) {
        return (weight.codes.to(torch::kFloat) * weight.scales.unsqueeze(1)).to(dtype);
    }
    const torch::Tensor table =
        torch::tensor(std::vector<float>(nf4Values().begin(), nf4Values().end()), floats);
    const torch::Tensor codes = weight.codes.to(torch::kLong);
    const torch::Tensor indices =
        torch::cat({torch::remainder(codes, 16), torch::floor_divide(codes, 16)}, 1);
    const std::int64_t blocks = weight.codes.size(0);
    const torch::Tensor scales =
        weight.group_offsets.repeat_interleave(kNf4Group).narrow(0, 0, blocks) +
        weight.scales.to(torch::kFloat) *
            weight.group_steps.repeat_interleave(kNf4Group).narrow(0, 0, blocks);
    const torch::Tensor values = table.index({indices}) * scales.unsqueeze(1);
    return values.view({-1})
        .narrow(0, 0, weight.out * weight.in)
        .view({weight.out, weight.in})
        .to(dtype);
}

} // namespace headroom::models
