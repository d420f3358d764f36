#pragma once

#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace headroom::train {

// Elements that share one absmax scale.
constexpr std::int64_t kQuantizationBlock = 256;

// A 256-entry "dynamic" code map for 8-bit values normalized by their block's absmax (the
// dynamic tree of Dettmers' 8-bit optimizers): magnitudes are spaced linearly inside each
// decade of [1e-7, 1] (signed: [1e-6, 1]), with twice the codes in each higher decade, so
// small moments keep a relative precision that a linear map would lose.
// - unsigned (second moment): code c is magnitude c, from 0 to 1.0;
// - signed (first moment): code 127 is 0, 127 + k is +magnitude k and 127 - k is -magnitude
//   k (k <= 127, so both -1 and +1 exist); code 255 is never produced (it decodes as +1).
class DynamicCodeMap {
public:
    static constexpr int kSignedZero = 127;
    // Bits of a float's representation dropped to form a bucket key: the key keeps the
    // exponent and 8 mantissa bits, so a bucket spans at most 1/256 of its values, less than
    // the relative gap between any two consecutive midpoints (checked when the map is built).
    static constexpr int kKeyShift = 15;
    static constexpr std::uint32_t kLowMask = (1u << kKeyShift) - 1;

    static const DynamicCodeMap &signedMap();
    static const DynamicCodeMap &unsignedMap();

    bool isSigned() const { return signed_; }
    // Decoded value of every code, in [-1, 1].
    const std::array<float, 256> &values() const { return values_; }
    float decode(std::uint8_t code) const { return values_[code]; }
    std::uint8_t zeroCode() const { return signed_ ? kSignedZero : 0; }

    // Branch-free nearest-code lookup. Held in locals by the encoding loops, so that storing
    // codes (uint8, which may alias anything) does not force the table's address to be
    // reloaded for every element.
    struct Encoder {
        // Per bucket: (midpoints below the bucket's start) << 16 | the low kKeyShift bits of
        // the one midpoint inside the bucket, or 0xFFFF when there is none.
        const std::uint32_t *buckets;
        float lowest; // where the first bucket starts (below the first midpoint)
        std::uint32_t min_key;

        // Index of the nearest magnitude to a, clamped to [0, 1] (NaN takes 0): the number
        // of midpoints between consecutive magnitudes that lie below it. Non-negative floats
        // order like their bit patterns, so inside a bucket comparing low bits is enough.
        int nearestMagnitude(float a) const {
            a = a > lowest ? a : lowest;
            a = a < 1.0f ? a : 1.0f;
            std::uint32_t bits = 0;
            std::memcpy(&bits, &a, sizeof bits);
            return magnitudeOfBits(bits);
        }
        int magnitudeOfBits(std::uint32_t bits) const {
            const std::uint32_t entry = buckets[(bits >> kKeyShift) - min_key];
            return static_cast<int>(entry >> 16) +
                   static_cast<int>((bits & kLowMask) > (entry & 0xFFFFu));
        }
        std::uint8_t encodeUnsigned(float normalized) const {
            return static_cast<std::uint8_t>(nearestMagnitude(normalized));
        }
        std::uint8_t encodeSigned(float normalized) const {
            std::uint32_t bits = 0;
            std::memcpy(&bits, &normalized, sizeof bits);
            return signedCode(nearestMagnitude(std::abs(normalized)), bits >> 31);
        }
        // kSignedZero + magnitude, or kSignedZero - magnitude when negative (0 or 1).
        static std::uint8_t signedCode(int magnitude, std::uint32_t negative) {
            const int sign = static_cast<int>(negative);
            return static_cast<std::uint8_t>(kSignedZero + ((magnitude ^ -sign) + sign));
        }
    };
    Encoder encoder() const { return {buckets_.data(), lowest_, min_key_}; }

    // The nearest code to normalized (ties go to the smaller magnitude). Values beyond 1 in
    // magnitude take the largest one; in the unsigned map negative values take 0; NaN
    // takes 0 (as in encodeTensor).
    std::uint8_t encode(float normalized) const {
        return signed_ ? encoder().encodeSigned(normalized) : encoder().encodeUnsigned(normalized);
    }

    // The same encoding through tensor operations (any device): normalized is float32, the
    // result uint8 of the same shape.
    torch::Tensor encodeTensor(const torch::Tensor &normalized) const;
    // values() as a float32 tensor on device (cached per device type).
    torch::Tensor valuesTensor(const torch::Device &device) const;

private:
    explicit DynamicCodeMap(bool is_signed);

    bool signed_;
    std::vector<float> magnitudes_; // ascending, magnitudes_[0] == 0, back() == 1
    std::vector<float> midpoints_;  // (magnitudes_[i] + magnitudes_[i + 1]) / 2
    std::vector<std::uint32_t> buckets_;
    float lowest_ = 0;
    std::uint32_t min_key_ = 0;
    std::array<float, 256> values_{};
};

// Block-wise quantization of a float span into codes[count] with one absmax for the block
// (count <= kQuantizationBlock). Returns the absmax (0 for an all-zero block: every code
// then decodes to 0).
float quantizeBlock(const float *values, std::int64_t count, const DynamicCodeMap &map,
                    std::uint8_t *codes);
// The same with the block's absmax already known (max |values[i]|).
void encodeBlock(const float *values, std::int64_t count, float absmax, const DynamicCodeMap &map,
                 std::uint8_t *codes);
void dequantizeBlock(const std::uint8_t *codes, float absmax, std::int64_t count,
                     const DynamicCodeMap &map, float *values);

// A tensor quantized in blocks of kQuantizationBlock elements: codes is uint8
// [blocks * kQuantizationBlock] (the last block padded with zero codes), absmax float32
// [blocks]; both on the tensor's device.
struct QuantizedTensor {
    torch::Tensor codes;
    torch::Tensor absmax;
};

std::int64_t quantizationBlocks(std::int64_t numel);

// Quantizes values (any shape, dtype and device; read as float32) into codes and absmax,
// which must already have the sizes above and live on values' device. CPU float32 takes the
// span functions, other tensors take tensor operations; both give the same codes up to the
// rounding of the normalization.
void quantizeInto(const torch::Tensor &values, const DynamicCodeMap &map, torch::Tensor &codes,
                  torch::Tensor &absmax);
QuantizedTensor quantizeBlockwise(const torch::Tensor &values, const DynamicCodeMap &map);
// Float32 tensor of numel elements on codes' device.
torch::Tensor dequantizeBlockwise(const torch::Tensor &codes, const torch::Tensor &absmax,
                                  std::int64_t numel, const DynamicCodeMap &map);
// The tensor-operation paths of the two, on any device (what CUDA takes).
void quantizeWithTensorOps(const torch::Tensor &values, const DynamicCodeMap &map,
                           torch::Tensor &codes, torch::Tensor &absmax);
torch::Tensor dequantizeWithTensorOps(const torch::Tensor &codes, const torch::Tensor &absmax,
                                      std::int64_t numel, const DynamicCodeMap &map);

} // namespace headroom::train
