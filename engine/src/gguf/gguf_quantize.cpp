#include "gguf/gguf_quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace headroom::gguf {

namespace {

std::uint32_t bitsOf(float value) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, 4);
    return bits;
}

float floatOf(std::uint32_t bits) {
    float value = 0;
    std::memcpy(&value, &bits, 4);
    return value;
}

void putHalf(std::uint8_t *out, float value) {
    const std::uint16_t bits = floatToHalf(value);
    out[0] = static_cast<std::uint8_t>(bits & 0xff);
    out[1] = static_cast<std::uint8_t>(bits >> 8);
}

float getHalf(const std::uint8_t *in) {
    return halfToFloat(static_cast<std::uint16_t>(in[0] | (in[1] << 8)));
}

int roundToInt(float value) {
    return static_cast<int>(std::lround(value));
}

// Blocks of 32: one f16 scale, then the codes (q8_0: int8; q4_0: nibbles, element j in the low
// nibble of byte j and element j + 16 in its high nibble, stored as code + 8).
void quantizeQ8_0(const float *x, std::uint8_t *out) {
    float amax = 0;
    for (int j = 0; j < 32; ++j) {
        amax = std::max(amax, std::fabs(x[j]));
    }
    const float d = amax / 127.f;
    const float id = d != 0 ? 1.f / d : 0.f;
    putHalf(out, d);
    for (int j = 0; j < 32; ++j) {
        out[2 + j] = static_cast<std::uint8_t>(static_cast<std::int8_t>(roundToInt(x[j] * id)));
    }
}

void quantizeQ4_0(const float *x, std::uint8_t *out) {
    float amax = 0, max = 0; // max: the value of largest magnitude, with its sign
    for (int j = 0; j < 32; ++j) {
        if (std::fabs(x[j]) > amax) {
            amax = std::fabs(x[j]);
            max = x[j];
        }
    }
    const float d = max / -8.f;
    const float id = d != 0 ? 1.f / d : 0.f;
    putHalf(out, d);
    for (int j = 0; j < 16; ++j) {
        const int low = std::min(15, static_cast<int>(x[j] * id + 8.5f));
        const int high = std::min(15, static_cast<int>(x[j + 16] * id + 8.5f));
        out[2 + j] = static_cast<std::uint8_t>(std::max(0, low) | (std::max(0, high) << 4));
    }
}

// Blocks of 32 with 5-bit codes: nibbles as q4_0, the fifth bit of element j in bit j of a
// little-endian u32. q5_0: x ~ d * (q - 16); q5_1: x ~ d * q + m.
void putFifthBits(std::uint8_t *out, std::uint32_t bits) {
    for (int i = 0; i < 4; ++i) {
        out[i] = static_cast<std::uint8_t>((bits >> (8 * i)) & 0xff);
    }
}

std::uint32_t getFifthBits(const std::uint8_t *in) {
    return static_cast<std::uint32_t>(in[0]) | (static_cast<std::uint32_t>(in[1]) << 8) |
           (static_cast<std::uint32_t>(in[2]) << 16) | (static_cast<std::uint32_t>(in[3]) << 24);
}

void packFiveBitCodes(const int *codes, std::uint8_t *fifth, std::uint8_t *nibbles) {
    std::uint32_t high = 0;
    for (int j = 0; j < 16; ++j) {
        nibbles[j] = static_cast<std::uint8_t>((codes[j] & 0xF) | ((codes[j + 16] & 0xF) << 4));
        high |= static_cast<std::uint32_t>((codes[j] >> 4) & 1) << j;
        high |= static_cast<std::uint32_t>((codes[j + 16] >> 4) & 1) << (j + 16);
    }
    putFifthBits(fifth, high);
}

void unpackFiveBitCodes(const std::uint8_t *fifth, const std::uint8_t *nibbles, int *codes) {
    const std::uint32_t high = getFifthBits(fifth);
    for (int j = 0; j < 16; ++j) {
        codes[j] = (nibbles[j] & 0xF) | static_cast<int>(((high >> j) & 1) << 4);
        codes[j + 16] = (nibbles[j] >> 4) | static_cast<int>(((high >> (j + 16)) & 1) << 4);
    }
}

void quantizeQ5_0(const float *x, std::uint8_t *out) {
    float amax = 0, max = 0;
    for (int j = 0; j < 32; ++j) {
        if (std::fabs(x[j]) > amax) {
            amax = std::fabs(x[j]);
            max = x[j];
        }
    }
    const float d = max / -16.f;
    const float id = d != 0 ? 1.f / d : 0.f;
    putHalf(out, d);
    int codes[32];
    for (int j = 0; j < 32; ++j) {
        codes[j] = std::clamp(static_cast<int>(x[j] * id + 16.5f), 0, 31);
    }
    packFiveBitCodes(codes, out + 2, out + 6);
}

void quantizeQ5_1(const float *x, std::uint8_t *out) {
    float lo = x[0], hi = x[0];
    for (int j = 1; j < 32; ++j) {
        lo = std::min(lo, x[j]);
        hi = std::max(hi, x[j]);
    }
    const float d = (hi - lo) / 31.f;
    const float id = d != 0 ? 1.f / d : 0.f;
    putHalf(out, d);
    putHalf(out + 2, lo);
    int codes[32];
    for (int j = 0; j < 32; ++j) {
        codes[j] = std::clamp(static_cast<int>((x[j] - lo) * id + 0.5f), 0, 31);
    }
    packFiveBitCodes(codes, out + 4, out + 8);
}

// x (n <= 32 values) ~ scale * L - offset with L in [0, max_code] and offset >= 0 (the sub-block's
// minimum clamped at zero): tries a few step sizes around (max - min) / max_code, refits scale and
// offset by least squares for each, keeps the smallest squared error.
void fitAsymmetric(const float *x, int n, int max_code, float &scale, float &offset) {
    float lo = 0, hi = x[0];
    for (int i = 0; i < n; ++i) {
        lo = std::min(lo, x[i]);
        hi = std::max(hi, x[i]);
    }
    if (hi <= lo) {
        scale = 0;
        offset = -lo;
        return;
    }
    float best_error = INFINITY;
    scale = (hi - lo) / max_code;
    offset = -lo;
    for (int step = -4; step <= 6; ++step) {
        const float inverse = (max_code + 0.1f * step) / (hi - lo);
        double sum_l = 0, sum_ll = 0, sum_x = 0, sum_lx = 0;
        int codes[32];
        for (int i = 0; i < n; ++i) {
            codes[i] = std::clamp(roundToInt(inverse * (x[i] - lo)), 0, max_code);
            sum_l += codes[i];
            sum_ll += codes[i] * codes[i];
            sum_x += x[i];
            sum_lx += codes[i] * x[i];
        }
        const double det = n * sum_ll - sum_l * sum_l;
        if (det <= 0) {
            continue;
        }
        float fit_scale = static_cast<float>((n * sum_lx - sum_l * sum_x) / det);
        float fit_min = static_cast<float>((sum_ll * sum_x - sum_l * sum_lx) / det);
        if (fit_min > 0) { // the offset may only lower values: refit the scale through 0
            fit_min = 0;
            fit_scale = sum_ll > 0 ? static_cast<float>(sum_lx / sum_ll) : 0.f;
        }
        float error = 0;
        for (int i = 0; i < n; ++i) {
            const float diff = fit_scale * codes[i] + fit_min - x[i];
            error += diff * diff;
        }
        if (fit_scale > 0 && error < best_error) {
            best_error = error;
            scale = fit_scale;
            offset = -fit_min;
        }
    }
}

// x ~ scale * L with L in [-max_code, max_code - 1]: the largest magnitude maps to -max_code
// (as ggml does), then a least-squares refit of the scale.
float fitSymmetric(const float *x, int n, int max_code) {
    float amax = 0, max = 0;
    for (int i = 0; i < n; ++i) {
        if (std::fabs(x[i]) > amax) {
            amax = std::fabs(x[i]);
            max = x[i];
        }
    }
    if (amax == 0) {
        return 0;
    }
    const float inverse = -static_cast<float>(max_code) / max;
    double sum_lx = 0, sum_ll = 0;
    for (int i = 0; i < n; ++i) {
        const int code = std::clamp(roundToInt(inverse * x[i]), -max_code, max_code - 1);
        sum_lx += code * x[i];
        sum_ll += code * code;
    }
    return sum_ll > 0 ? static_cast<float>(sum_lx / sum_ll) : 1.f / inverse;
}

// The 12 bytes of eight 6-bit scales and eight 6-bit mins (ggml's get_scale_min_k4 reads them).
void packScalesMins(const int *scales, const int *mins, std::uint8_t *out) {
    std::memset(out, 0, 12);
    for (int j = 0; j < 8; ++j) {
        if (j < 4) {
            out[j] = static_cast<std::uint8_t>(scales[j]);
            out[j + 4] = static_cast<std::uint8_t>(mins[j]);
        } else {
            out[j + 4] = static_cast<std::uint8_t>((scales[j] & 0xF) | ((mins[j] & 0xF) << 4));
            out[j - 4] |= static_cast<std::uint8_t>((scales[j] >> 4) << 6);
            out[j] |= static_cast<std::uint8_t>((mins[j] >> 4) << 6);
        }
    }
}

void unpackScaleMin(int j, const std::uint8_t *q, int &scale, int &min) {
    if (j < 4) {
        scale = q[j] & 63;
        min = q[j + 4] & 63;
    } else {
        scale = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
        min = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
    }
}

// q4_K (bits 4) and q5_K (bits 5): eight sub-blocks of 32, each x ~ d*sc*L - dmin*m.
void quantizeKAsymmetric(const float *x, std::uint8_t *out, int bits) {
    const int max_code = (1 << bits) - 1;
    float scales[8], offsets[8];
    float max_scale = 0, max_offset = 0;
    for (int j = 0; j < 8; ++j) {
        fitAsymmetric(x + 32 * j, 32, max_code, scales[j], offsets[j]);
        max_scale = std::max(max_scale, scales[j]);
        max_offset = std::max(max_offset, offsets[j]);
    }
    const float inverse_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
    const float inverse_offset = max_offset > 0 ? 63.f / max_offset : 0.f;
    int sc[8], m[8];
    for (int j = 0; j < 8; ++j) {
        sc[j] = std::min(63, roundToInt(inverse_scale * scales[j]));
        m[j] = std::min(63, roundToInt(inverse_offset * offsets[j]));
    }
    putHalf(out, max_scale / 63.f);
    putHalf(out + 2, max_offset / 63.f);
    std::uint8_t *packed = out + 4;
    packScalesMins(sc, m, packed);
    const float d = getHalf(out), dmin = getHalf(out + 2);
    int codes[256];
    for (int j = 0; j < 8; ++j) {
        int scale = 0, min = 0;
        unpackScaleMin(j, packed, scale, min);
        const float step = d * scale, shift = dmin * min;
        for (int i = 0; i < 32; ++i) {
            codes[32 * j + i] =
                step == 0 ? 0 : std::clamp(roundToInt((x[32 * j + i] + shift) / step), 0, max_code);
        }
    }
    std::uint8_t *high = bits == 5 ? out + 16 : nullptr;
    std::uint8_t *low = bits == 5 ? out + 48 : out + 16;
    if (high != nullptr) {
        std::memset(high, 0, 32);
    }
    // Each 64 values: the first 32 in the low nibbles, the next 32 in the high nibbles; q5_K
    // keeps the fifth bit of chunk c in bits 2c (first half) and 2c+1 (second half) of qh.
    for (int chunk = 0; chunk < 4; ++chunk) {
        for (int l = 0; l < 32; ++l) {
            const int a = codes[64 * chunk + l], b = codes[64 * chunk + l + 32];
            low[32 * chunk + l] = static_cast<std::uint8_t>((a & 0xF) | ((b & 0xF) << 4));
            if (high != nullptr) {
                high[l] |= static_cast<std::uint8_t>(((a >> 4) << (2 * chunk)) |
                                                     ((b >> 4) << (2 * chunk + 1)));
            }
        }
    }
}

void dequantizeKAsymmetric(const std::uint8_t *in, float *y, int bits) {
    const float d = getHalf(in), dmin = getHalf(in + 2);
    const std::uint8_t *packed = in + 4;
    const std::uint8_t *high = bits == 5 ? in + 16 : nullptr;
    const std::uint8_t *low = bits == 5 ? in + 48 : in + 16;
    for (int chunk = 0; chunk < 4; ++chunk) {
        int sc1 = 0, m1 = 0, sc2 = 0, m2 = 0;
        unpackScaleMin(2 * chunk, packed, sc1, m1);
        unpackScaleMin(2 * chunk + 1, packed, sc2, m2);
        for (int l = 0; l < 32; ++l) {
            int a = low[32 * chunk + l] & 0xF, b = low[32 * chunk + l] >> 4;
            if (high != nullptr) {
                a += ((high[l] >> (2 * chunk)) & 1) << 4;
                b += ((high[l] >> (2 * chunk + 1)) & 1) << 4;
            }
            y[64 * chunk + l] = d * sc1 * a - dmin * m1;
            y[64 * chunk + l + 32] = d * sc2 * b - dmin * m2;
        }
    }
}

// q6_K: sixteen sub-blocks of 16, x ~ d*sc*L with L in [-32, 31] stored as L + 32 in 6 bits.
void quantizeQ6_K(const float *x, std::uint8_t *out) {
    float scales[16];
    float max_scale = 0, max_abs = 0;
    for (int j = 0; j < 16; ++j) {
        scales[j] = fitSymmetric(x + 16 * j, 16, 32);
        if (std::fabs(scales[j]) > max_abs) {
            max_abs = std::fabs(scales[j]);
            max_scale = scales[j];
        }
    }
    std::uint8_t *ql = out, *qh = out + 128;
    auto *sc = reinterpret_cast<std::int8_t *>(out + 192);
    std::memset(out, 0, 210);
    if (max_abs == 0) {
        return;
    }
    const float inverse = -128.f / max_scale;
    putHalf(out + 208, 1.f / inverse);
    const float d = getHalf(out + 208);
    int codes[256];
    for (int j = 0; j < 16; ++j) {
        sc[j] = static_cast<std::int8_t>(std::clamp(roundToInt(inverse * scales[j]), -128, 127));
        const float step = d * sc[j];
        for (int i = 0; i < 16; ++i) {
            const int code = step == 0 ? 0 : roundToInt(x[16 * j + i] / step);
            codes[16 * j + i] = std::clamp(code, -32, 31) + 32;
        }
    }
    for (int half = 0; half < 2; ++half) {
        const int *c = codes + 128 * half;
        std::uint8_t *low = ql + 64 * half, *high = qh + 32 * half;
        for (int l = 0; l < 32; ++l) {
            low[l] = static_cast<std::uint8_t>((c[l] & 0xF) | ((c[l + 64] & 0xF) << 4));
            low[l + 32] = static_cast<std::uint8_t>((c[l + 32] & 0xF) | ((c[l + 96] & 0xF) << 4));
            high[l] = static_cast<std::uint8_t>((c[l] >> 4) | ((c[l + 32] >> 4) << 2) |
                                                ((c[l + 64] >> 4) << 4) | ((c[l + 96] >> 4) << 6));
        }
    }
}

void dequantizeQ6_K(const std::uint8_t *in, float *y) {
    const float d = getHalf(in + 208);
    const auto *sc = reinterpret_cast<const std::int8_t *>(in + 192);
    for (int half = 0; half < 2; ++half) {
        const std::uint8_t *ql = in + 64 * half, *qh = in + 128 + 32 * half;
        const std::int8_t *s = sc + 8 * half;
        float *out = y + 128 * half;
        for (int l = 0; l < 32; ++l) {
            const int is = l / 16;
            const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
            const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
            const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
            const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
            out[l] = d * s[is] * q1;
            out[l + 32] = d * s[is + 2] * q2;
            out[l + 64] = d * s[is + 4] * q3;
            out[l + 96] = d * s[is + 6] * q4;
        }
    }
}

void quantizeBlock(const float *x, std::uint8_t *out, TensorType type) {
    switch (type) {
    case TensorType::F32:
        std::memcpy(out, x, 4); // the host is little endian (checked in quantizeRows)
        return;
    case TensorType::F16:
        putHalf(out, *x);
        return;
    case TensorType::BF16: {
        const std::uint16_t bits = floatToBfloat16(*x);
        out[0] = static_cast<std::uint8_t>(bits & 0xff);
        out[1] = static_cast<std::uint8_t>(bits >> 8);
        return;
    }
    case TensorType::Q8_0:
        return quantizeQ8_0(x, out);
    case TensorType::Q4_0:
        return quantizeQ4_0(x, out);
    case TensorType::Q5_0:
        return quantizeQ5_0(x, out);
    case TensorType::Q5_1:
        return quantizeQ5_1(x, out);
    case TensorType::Q4_K:
        return quantizeKAsymmetric(x, out, 4);
    case TensorType::Q5_K:
        return quantizeKAsymmetric(x, out, 5);
    case TensorType::Q6_K:
        return quantizeQ6_K(x, out);
    }
}

void dequantizeBlock(const std::uint8_t *in, float *y, TensorType type) {
    switch (type) {
    case TensorType::F32:
        std::memcpy(y, in, 4);
        return;
    case TensorType::F16:
        *y = getHalf(in);
        return;
    case TensorType::BF16:
        *y = bfloat16ToFloat(static_cast<std::uint16_t>(in[0] | (in[1] << 8)));
        return;
    case TensorType::Q8_0: {
        const float d = getHalf(in);
        for (int j = 0; j < 32; ++j) {
            y[j] = d * static_cast<std::int8_t>(in[2 + j]);
        }
        return;
    }
    case TensorType::Q4_0: {
        const float d = getHalf(in);
        for (int j = 0; j < 16; ++j) {
            y[j] = d * ((in[2 + j] & 0xF) - 8);
            y[j + 16] = d * ((in[2 + j] >> 4) - 8);
        }
        return;
    }
    case TensorType::Q5_0:
    case TensorType::Q5_1: {
        const bool with_min = type == TensorType::Q5_1;
        const float d = getHalf(in), m = with_min ? getHalf(in + 2) : 0.f;
        int codes[32];
        unpackFiveBitCodes(in + (with_min ? 4 : 2), in + (with_min ? 8 : 6), codes);
        for (int j = 0; j < 32; ++j) {
            y[j] = with_min ? d * codes[j] + m : d * (codes[j] - 16);
        }
        return;
    }
    case TensorType::Q4_K:
        return dequantizeKAsymmetric(in, y, 4);
    case TensorType::Q5_K:
        return dequantizeKAsymmetric(in, y, 5);
    case TensorType::Q6_K:
        return dequantizeQ6_K(in, y);
    }
}

void checkRowLength(std::int64_t row_length, TensorType type) {
    if (row_length <= 0 || row_length % blockElements(type) != 0) {
        throw std::invalid_argument("rows of " + std::to_string(row_length) +
                                    " values do not split into " + tensorTypeName(type) +
                                    " blocks of " + std::to_string(blockElements(type)));
    }
    const std::uint16_t one = 1;
    std::uint8_t first_byte = 0;
    std::memcpy(&first_byte, &one, 1);
    if (first_byte != 1) {
        throw std::runtime_error("GGUF files are little endian; this host is not");
    }
}

} // namespace

namespace {

// Drops the low `shift` bits of `value`, rounding to nearest, ties to even.
std::uint32_t roundShift(std::uint32_t value, std::uint32_t shift) {
    const std::uint32_t kept = value >> shift;
    const std::uint32_t rest = value & ((1u << shift) - 1);
    const std::uint32_t halfway = 1u << (shift - 1);
    return kept + ((rest > halfway || (rest == halfway && (kept & 1u) != 0)) ? 1u : 0u);
}

} // namespace

std::uint16_t floatToHalf(float value) {
    const std::uint32_t bits = bitsOf(value);
    const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
    const std::uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude > 0x7f800000u) {
        return sign | 0x7e00u; // NaN stays a (quiet) NaN
    }
    if (magnitude >= 0x477ff000u) { // 65520 and up round to infinity
        return sign | 0x7c00u;
    }
    if (magnitude >= 0x38800000u) { // 2^-14 and up: a normal half
        // Rebiasing the exponent (127 -> 15) keeps the mantissa's place; a carry out of the
        // rounded mantissa correctly bumps the exponent.
        return sign | static_cast<std::uint16_t>(roundShift(magnitude - 0x38000000u, 13));
    }
    if (magnitude < 0x33000000u) { // below 2^-25: rounds to zero
        return sign;
    }
    // A subnormal half counts units of 2^-24; the float's mantissa with its implicit one counts
    // units of 2^(exponent - 150).
    const std::uint32_t exponent = magnitude >> 23;
    const std::uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    return sign | static_cast<std::uint16_t>(roundShift(mantissa, 126 - exponent));
}

float halfToFloat(std::uint16_t bits) {
    const std::uint32_t sign = (bits & 0x8000u) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1Fu;
    const std::uint32_t mantissa = bits & 0x3FFu;
    if (exponent == 0) {
        const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
        return sign != 0 ? -magnitude : magnitude;
    }
    if (exponent == 31) {
        return floatOf(sign | 0x7F800000u | (mantissa << 13));
    }
    return floatOf(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

std::uint16_t floatToBfloat16(float value) {
    const std::uint32_t bits = bitsOf(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u) {
        return static_cast<std::uint16_t>((bits >> 16) | 64); // quiet NaN
    }
    return static_cast<std::uint16_t>((bits + (0x7fffu + ((bits >> 16) & 1))) >> 16);
}

float bfloat16ToFloat(std::uint16_t bits) {
    return floatOf(static_cast<std::uint32_t>(bits) << 16);
}

void quantizeRowsInto(const float *values, std::int64_t rows, std::int64_t row_length,
                      TensorType type, std::uint8_t *out) {
    checkRowLength(row_length, type);
    const std::int64_t block = blockElements(type);
    const std::int64_t block_bytes = blockBytes(type);
    const std::int64_t blocks = rows * (row_length / block);
    for (std::int64_t b = 0; b < blocks; ++b) {
        quantizeBlock(values + b * block, out + b * block_bytes, type);
    }
}

std::vector<std::uint8_t> quantizeRows(const float *values, std::int64_t rows,
                                       std::int64_t row_length, TensorType type) {
    checkRowLength(row_length, type);
    std::vector<std::uint8_t> out(static_cast<std::size_t>(rows) * rowBytes(type, row_length));
    quantizeRowsInto(values, rows, row_length, type, out.data());
    return out;
}

std::vector<float> dequantizeRows(const std::uint8_t *bytes, std::int64_t rows,
                                  std::int64_t row_length, TensorType type) {
    checkRowLength(row_length, type);
    const std::int64_t block = blockElements(type);
    const std::int64_t block_bytes = blockBytes(type);
    const std::int64_t blocks = rows * (row_length / block);
    std::vector<float> out(static_cast<std::size_t>(rows * row_length));
    for (std::int64_t b = 0; b < blocks; ++b) {
        dequantizeBlock(bytes + b * block_bytes, out.data() + b * block, type);
    }
    return out;
}

} // namespace headroom::gguf
