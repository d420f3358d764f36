#include "quant/blockwise_quantization.h"

#include <ATen/Parallel.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

namespace headroom::train {

namespace {

// Blocks per parallel task when quantizing or dequantizing a whole tensor.
constexpr std::int64_t kGrainBlocks = 64;

std::uint32_t upperBits(float value, int shift) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    return bits >> shift;
}

float fromUpperBits(std::uint32_t key, int shift) {
    const std::uint32_t bits = key << shift;
    float value = 0;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

// Decade k covers (10^(k-7), 10^(k-6)] and holds codes_per_decade[k] magnitudes at the upper
// ends of equal slices of [0.1, 1] x 10^(k-6): the largest one of the top decade is exactly 1,
// so a block's absmax element is stored exactly.
std::vector<float> dynamicMagnitudes(const std::vector<int> &codes_per_decade) {
    std::vector<float> magnitudes{0.0f};
    const int decades = static_cast<int>(codes_per_decade.size());
    for (int k = 0; k < decades; ++k) {
        const double scale = std::pow(10.0, k - (decades - 1));
        const int count = codes_per_decade[static_cast<std::size_t>(k)];
        for (int j = 1; j <= count; ++j) {
            magnitudes.push_back(static_cast<float>(scale * (0.1 + 0.9 * j / count)));
        }
    }
    return magnitudes;
}

// The tables as tensors on a device, made once per (table, device): the step would otherwise
// upload them for every parameter.
torch::Tensor cachedTable(const std::string &name, const std::vector<float> &table,
                          const torch::Device &device) {
    static std::mutex mutex;
    static std::map<std::string, torch::Tensor> cache;
    const std::string key = name + "@" + device.str();
    std::lock_guard<std::mutex> lock(mutex);
    auto found = cache.find(key);
    if (found == cache.end()) {
        found = cache.emplace(key, torch::tensor(table).to(device)).first;
    }
    return found->second;
}

} // namespace

DynamicCodeMap::DynamicCodeMap(bool is_signed) : signed_(is_signed) {
    // Unsigned: 1 + 2 + 4 + ... + 128 = 255 magnitudes over eight decades, plus 0.
    // Signed: 1 + 2 + ... + 64 = 127 magnitudes over seven decades per sign, plus 0.
    magnitudes_ = is_signed ? dynamicMagnitudes({1, 2, 4, 8, 16, 32, 64})
                            : dynamicMagnitudes({1, 2, 4, 8, 16, 32, 64, 128});
    for (std::size_t i = 0; i + 1 < magnitudes_.size(); ++i) {
        if (!(magnitudes_[i] < magnitudes_[i + 1])) {
            throw std::logic_error("DynamicCodeMap: magnitudes are not strictly ascending");
        }
        midpoints_.push_back((magnitudes_[i] + magnitudes_[i + 1]) / 2.0f);
    }
    min_key_ = upperBits(midpoints_.front(), kKeyShift);
    lowest_ = fromUpperBits(min_key_, kKeyShift);
    for (std::uint32_t key = min_key_; key <= upperBits(1.0f, kKeyShift); ++key) {
        const float bucket_begin = fromUpperBits(key, kKeyShift);
        const float bucket_end = fromUpperBits(key + 1, kKeyShift);
        const auto below = std::lower_bound(midpoints_.begin(), midpoints_.end(), bucket_begin);
        const auto below_end = std::lower_bound(midpoints_.begin(), midpoints_.end(), bucket_end);
        if (below_end - below > 1) {
            throw std::logic_error("DynamicCodeMap: two midpoints share a bucket");
        }
        std::uint32_t threshold = 0xFFFFu;
        if (below_end != below) {
            std::uint32_t bits = 0;
            std::memcpy(&bits, &*below, sizeof bits);
            threshold = bits & kLowMask;
        }
        const auto start = static_cast<std::uint32_t>(below - midpoints_.begin());
        buckets_.push_back(start << 16 | threshold);
    }

    if (is_signed) {
        for (int code = 0; code < 256; ++code) {
            const int k = std::min(std::abs(code - kSignedZero), 127);
            const float magnitude = magnitudes_[static_cast<std::size_t>(k)];
            values_[static_cast<std::size_t>(code)] = code < kSignedZero ? -magnitude : magnitude;
        }
    } else {
        std::copy(magnitudes_.begin(), magnitudes_.end(), values_.begin());
    }
}

const DynamicCodeMap &DynamicCodeMap::signedMap() {
    static const DynamicCodeMap map(true);
    return map;
}

const DynamicCodeMap &DynamicCodeMap::unsignedMap() {
    static const DynamicCodeMap map(false);
    return map;
}

torch::Tensor DynamicCodeMap::valuesTensor(const torch::Device &device) const {
    return cachedTable(signed_ ? "signed values" : "unsigned values",
                       std::vector<float>(values_.begin(), values_.end()), device);
}

torch::Tensor DynamicCodeMap::encodeTensor(const torch::Tensor &normalized) const {
    const torch::Tensor midpoints = cachedTable(signed_ ? "signed midpoints" : "unsigned midpoints",
                                                midpoints_, normalized.device());
    const torch::Tensor values = torch::nan_to_num(normalized.to(torch::kFloat), 0.0);
    if (!signed_) {
        return torch::searchsorted(midpoints, values.clamp(0.0, 1.0)).to(torch::kUInt8);
    }
    const torch::Tensor magnitude = torch::searchsorted(midpoints, values.abs().clamp_max(1.0));
    return torch::where(values < 0, kSignedZero - magnitude, kSignedZero + magnitude)
        .to(torch::kUInt8);
}

float quantizeBlock(const float *values, std::int64_t count, const DynamicCodeMap &map,
                    std::uint8_t *codes) {
    float absmax = 0.0f;
    for (std::int64_t i = 0; i < count; ++i) {
        absmax = std::max(absmax, std::abs(values[i]));
    }
    encodeBlock(values, count, absmax, map, codes);
    return absmax;
}

void encodeBlock(const float *values, std::int64_t count, float absmax, const DynamicCodeMap &map,
                 std::uint8_t *codes) {
    const float inverse = absmax > 0.0f ? 1.0f / absmax : 0.0f;
    const DynamicCodeMap::Encoder encoder = map.encoder();
    const bool is_signed = map.isSigned();
    std::int64_t i = 0;
#if defined(__SSE2__)
    // The arithmetic four at a time, the table lookups one by one (SSE2 has no gather).
    // Same clamps as Encoder::nearestMagnitude: max(a, lowest) sends NaN to lowest too.
    const __m128 inverse4 = _mm_set1_ps(inverse);
    const __m128 lowest4 = _mm_set1_ps(encoder.lowest);
    const __m128 one4 = _mm_set1_ps(1.0f);
    const __m128 sign_bit = _mm_set1_ps(-0.0f);
    alignas(16) std::uint32_t bits[4];
    for (; i + 4 <= count; i += 4) {
        const __m128 x = _mm_mul_ps(_mm_loadu_ps(values + i), inverse4);
        const __m128 magnitude = is_signed ? _mm_andnot_ps(sign_bit, x) : x;
        const __m128 a = _mm_min_ps(_mm_max_ps(magnitude, lowest4), one4);
        _mm_store_si128(reinterpret_cast<__m128i *>(bits), _mm_castps_si128(a));
        if (is_signed) {
            const auto negative = static_cast<std::uint32_t>(_mm_movemask_ps(x));
            for (int lane = 0; lane < 4; ++lane) {
                codes[i + lane] = DynamicCodeMap::Encoder::signedCode(
                    encoder.magnitudeOfBits(bits[lane]), (negative >> lane) & 1u);
            }
        } else {
            for (int lane = 0; lane < 4; ++lane) {
                codes[i + lane] = static_cast<std::uint8_t>(encoder.magnitudeOfBits(bits[lane]));
            }
        }
    }
#endif
    for (; i < count; ++i) {
        codes[i] = is_signed ? encoder.encodeSigned(values[i] * inverse)
                             : encoder.encodeUnsigned(values[i] * inverse);
    }
}

void dequantizeBlock(const std::uint8_t *codes, float absmax, std::int64_t count,
                     const DynamicCodeMap &map, float *values) {
    const float *table = map.values().data();
    for (std::int64_t i = 0; i < count; ++i) {
        values[i] = table[codes[i]] * absmax;
    }
}

std::int64_t quantizationBlocks(std::int64_t numel) {
    return (numel + kQuantizationBlock - 1) / kQuantizationBlock;
}

void quantizeInto(const torch::Tensor &values, const DynamicCodeMap &map, torch::Tensor &codes,
                  torch::Tensor &absmax) {
    torch::NoGradGuard no_grad;
    const std::int64_t numel = values.numel();
    const std::int64_t blocks = quantizationBlocks(numel);
    if (codes.numel() != blocks * kQuantizationBlock || absmax.numel() != blocks ||
        codes.scalar_type() != torch::kUInt8 || absmax.scalar_type() != torch::kFloat) {
        throw std::invalid_argument("quantizeInto: codes or absmax have the wrong size or dtype");
    }
    if (values.device().is_cpu() && values.scalar_type() == torch::kFloat &&
        codes.is_contiguous() && absmax.is_contiguous()) {
        const torch::Tensor source = values.contiguous();
        const float *in = source.data_ptr<float>();
        std::uint8_t *out = codes.data_ptr<std::uint8_t>();
        float *scales = absmax.data_ptr<float>();
        at::parallel_for(0, blocks, kGrainBlocks, [&](std::int64_t begin, std::int64_t end) {
            for (std::int64_t block = begin; block < end; ++block) {
                const std::int64_t first = block * kQuantizationBlock;
                const std::int64_t count = std::min(kQuantizationBlock, numel - first);
                scales[block] = quantizeBlock(in + first, count, map, out + first);
            }
        });
        return;
    }
    quantizeWithTensorOps(values, map, codes, absmax);
}

void quantizeWithTensorOps(const torch::Tensor &values, const DynamicCodeMap &map,
                           torch::Tensor &codes, torch::Tensor &absmax) {
    torch::NoGradGuard no_grad;
    const std::int64_t numel = values.numel();
    const std::int64_t blocks = quantizationBlocks(numel);
    torch::Tensor flat = values.detach().reshape({-1}).to(torch::kFloat);
    flat = torch::constant_pad_nd(flat, {0, blocks * kQuantizationBlock - numel}, 0.0);
    const torch::Tensor rows = flat.view({blocks, kQuantizationBlock});
    const torch::Tensor block_absmax = std::get<0>(rows.abs().max(1));
    const torch::Tensor inverse =
        torch::where(block_absmax > 0, block_absmax.reciprocal(), torch::zeros_like(block_absmax));
    codes.copy_(map.encodeTensor(rows * inverse.unsqueeze(1)).view({-1}));
    absmax.copy_(block_absmax);
}

QuantizedTensor quantizeBlockwise(const torch::Tensor &values, const DynamicCodeMap &map) {
    const std::int64_t blocks = quantizationBlocks(values.numel());
    const torch::TensorOptions options = torch::TensorOptions().device(values.device());
    QuantizedTensor result{
        torch::full({blocks * kQuantizationBlock}, map.zeroCode(), options.dtype(torch::kUInt8)),
        torch::zeros({blocks}, options.dtype(torch::kFloat))};
    quantizeInto(values, map, result.codes, result.absmax);
    return result;
}

torch::Tensor dequantizeBlockwise(const torch::Tensor &codes, const torch::Tensor &absmax,
                                  std::int64_t numel, const DynamicCodeMap &map) {
    torch::NoGradGuard no_grad;
    const std::int64_t blocks = quantizationBlocks(numel);
    if (codes.numel() < blocks * kQuantizationBlock || absmax.numel() < blocks) {
        throw std::invalid_argument("dequantizeBlockwise: fewer codes or scales than elements");
    }
    if (codes.device().is_cpu() && codes.is_contiguous() && absmax.is_contiguous()) {
        torch::Tensor values = torch::empty({numel}, torch::kFloat);
        const std::uint8_t *in = codes.data_ptr<std::uint8_t>();
        const float *scales = absmax.data_ptr<float>();
        float *out = values.data_ptr<float>();
        at::parallel_for(0, blocks, kGrainBlocks, [&](std::int64_t begin, std::int64_t end) {
            for (std::int64_t block = begin; block < end; ++block) {
                const std::int64_t first = block * kQuantizationBlock;
                const std::int64_t count = std::min(kQuantizationBlock, numel - first);
                dequantizeBlock(in + first, scales[block], count, map, out + first);
            }
        });
        return values;
    }
    return dequantizeWithTensorOps(codes, absmax, numel, map);
}

torch::Tensor dequantizeWithTensorOps(const torch::Tensor &codes, const torch::Tensor &absmax,
                                      std::int64_t numel, const DynamicCodeMap &map) {
    torch::NoGradGuard no_grad;
    const std::int64_t blocks = quantizationBlocks(numel);
    const torch::Tensor table = map.valuesTensor(codes.device());
    const torch::Tensor rows =
        table.index_select(0, codes.narrow(0, 0, blocks * kQuantizationBlock).to(torch::kLong))
            .view({blocks, kQuantizationBlock});
    return (rows * absmax.narrow(0, 0, blocks).unsqueeze(1)).view({-1}).narrow(0, 0, numel);
}

} // namespace headroom::train
