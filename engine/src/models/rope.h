// Rotary position embeddings as Llama-family checkpoints expect them: the two halves of each
// head are rotated as pairs (x_i, x_{i+D/2}), the "rotate_half" layout Hugging Face stores
// Llama, Qwen2, Mistral and Mixtral weights in.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>

namespace headroom::models {

struct RopeOptions {
    std::int64_t head_dim = 64;
    double theta = 10000.0;
    std::string scaling;                        // "" | "linear" | "llama3"
    double factor = 1.0;                        // linear and llama3
    double low_freq_factor = 1.0;               // llama3
    double high_freq_factor = 4.0;              // llama3
    std::int64_t original_max_positions = 8192; // llama3
};

// Throws std::invalid_argument naming the bad option (odd head_dim, theta <= 0, unknown
// scaling, factor <= 0, high_freq_factor <= low_freq_factor).
void validateRopeOptions(const RopeOptions &options);

// [head_dim / 2] float32 inverse frequencies, scaled as the options say, computed in float32
// in the order the reference does so angles agree to the last bits.
torch::Tensor ropeInverseFrequencies(const RopeOptions &options);

// Rotates x [B, H, T, D] at positions offset .. offset+T-1. inverse_frequencies is on x's
// device; the rotation is computed in float32 and returned in x's dtype.
torch::Tensor applyRope(const torch::Tensor &x, const torch::Tensor &inverse_frequencies,
                        std::int64_t offset);

// The cosines and sines applyRope needs for positions offset .. offset+length-1 ([length, D]
// float32 each): a model computes them once per forward for all its layers.
struct RopeTables {
    torch::Tensor cos;
    torch::Tensor sin;
};
RopeTables ropeTables(const torch::Tensor &inverse_frequencies, std::int64_t offset,
                      std::int64_t length);
// The same for per-token positions [B, T] int64 (packed rows, whose positions restart with
// every document): [B, 1, T, D] each, broadcasting over the heads.
RopeTables ropeTables(const torch::Tensor &inverse_frequencies, const torch::Tensor &positions);
// applyRope with the tables of x's positions.
torch::Tensor applyRope(const torch::Tensor &x, const RopeTables &tables);

} // namespace headroom::models
