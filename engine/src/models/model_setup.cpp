#include "models/model_setup.h"

#include <stdexcept>
#include <string>

namespace headroom::models {

void requirePositiveOption(const char *kind, std::int64_t value, const char *name) {
    if (value < 1) {
        throw std::invalid_argument(std::string(kind) + " option " + name +
                                    " must be at least 1, got " + std::to_string(value));
    }
}

void requireProbabilityOption(const char *kind, double value, const char *name) {
    if (!(value >= 0.0 && value < 1.0)) {
        throw std::invalid_argument(std::string(kind) + " option " + name +
                                    " must be in [0, 1), got " + std::to_string(value));
    }
}

void initLinear(torch::nn::Linear &linear, double std) {
    torch::nn::init::normal_(linear->weight, 0.0, std);
    if (linear->bias.defined()) {
        torch::nn::init::zeros_(linear->bias);
    }
}

void initLayerNorm(torch::nn::LayerNorm &norm) {
    torch::nn::init::ones_(norm->weight);
    torch::nn::init::zeros_(norm->bias);
}

} // namespace headroom::models
