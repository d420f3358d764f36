#include "models/rope.h"

#include <cmath>
#include <stdexcept>

namespace headroom::models {

void validateRopeOptions(const RopeOptions &options) {
    if (options.head_dim < 2 || options.head_dim % 2 != 0) {
        throw std::invalid_argument("rotary embeddings need an even head size, got " +
                                    std::to_string(options.head_dim));
    }
    if (!(options.theta > 0)) {
        throw std::invalid_argument("rope_theta must be positive");
    }
    if (options.scaling != "" && options.scaling != "linear" && options.scaling != "llama3") {
        throw std::invalid_argument("rope scaling '" + options.scaling +
                                    "' is not supported (linear, llama3)");
    }
    if (!options.scaling.empty() && !(options.factor > 0)) {
        throw std::invalid_argument("rope scaling factor must be positive");
    }
    if (options.scaling == "llama3" &&
        (!(options.high_freq_factor > options.low_freq_factor) || !(options.low_freq_factor > 0) ||
         options.original_max_positions < 1)) {
        throw std::invalid_argument("llama3 rope scaling needs 0 < low_freq_factor < "
                                    "high_freq_factor and original_max_position_embeddings >= 1");
    }
}

torch::Tensor ropeInverseFrequencies(const RopeOptions &options) {
    validateRopeOptions(options);
    const auto dim = static_cast<double>(options.head_dim);
    const torch::Tensor exponents =
        torch::arange(0, options.head_dim, 2, torch::kLong).to(torch::kFloat) / dim;
    torch::Tensor inverse =
        1.0 / torch::pow(torch::tensor(options.theta, torch::kFloat), exponents);
    if (options.scaling == "linear") {
        return inverse / options.factor;
    }
    if (options.scaling != "llama3") {
        return inverse;
    }
    // Llama 3.1: long wavelengths are slowed by the factor, short ones kept, and the band in
    // between interpolates smoothly.
    const auto context = static_cast<double>(options.original_max_positions);
    const double low_freq_wavelength = context / options.low_freq_factor;
    const double high_freq_wavelength = context / options.high_freq_factor;
    const torch::Tensor wavelength = 2.0 * M_PI / inverse;
    torch::Tensor scaled =
        torch::where(wavelength > low_freq_wavelength, inverse / options.factor, inverse);
    const torch::Tensor smooth = (context / wavelength - options.low_freq_factor) /
                                 (options.high_freq_factor - options.low_freq_factor);
    const torch::Tensor smoothed = (1 - smooth) * scaled / options.factor + smooth * scaled;
    const torch::Tensor medium =
        (wavelength >= high_freq_wavelength).logical_and(wavelength <= low_freq_wavelength);
    return torch::where(medium, smoothed, scaled);
}

torch::Tensor applyRope(const torch::Tensor &x, const torch::Tensor &inverse_frequencies,
                        std::int64_t offset) {
    return applyRope(x, ropeTables(inverse_frequencies, offset, x.size(2)));
}

RopeTables ropeTables(const torch::Tensor &inverse_frequencies, std::int64_t offset,
                      std::int64_t length) {
    const torch::Tensor positions =
        torch::arange(offset, offset + length, inverse_frequencies.options().dtype(torch::kLong))
            .to(torch::kFloat);
    const torch::Tensor angles = torch::outer(positions, inverse_frequencies); // [T, D/2]
    const torch::Tensor both = torch::cat({angles, angles}, -1);               // [T, D]
    return {both.cos(), both.sin()};
}

RopeTables ropeTables(const torch::Tensor &inverse_frequencies, const torch::Tensor &positions) {
    // The products are the ones torch::outer forms above, so a packed document's angles equal
    // those of the document alone.
    const torch::Tensor angles =
        positions.to(torch::kFloat).unsqueeze(-1) * inverse_frequencies;      // [B, T, D/2]
    const torch::Tensor both = torch::cat({angles, angles}, -1).unsqueeze(1); // [B, 1, T, D]
    return {both.cos(), both.sin()};
}

torch::Tensor applyRope(const torch::Tensor &x, const RopeTables &tables) {
    const std::int64_t half = x.size(3) / 2;
    const torch::Tensor rotated = torch::cat({-x.narrow(3, half, half), x.narrow(3, 0, half)}, -1);
    return x * tables.cos.to(x.scalar_type()) + rotated * tables.sin.to(x.scalar_type());
}

} // namespace headroom::models
