#pragma once

#include <cmath>
#include <nlohmann/json.hpp>

namespace headroom::cli {

// JSON has no NaN or infinity: such a value is written as null.
inline nlohmann::json finiteOrNull(double value) {
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

} // namespace headroom::cli
