// The memory models' arithmetic: byte counts as doubles (products of shapes with fractional
// coefficients), rounded once at the end.
#pragma once

#include <cstdint>

namespace headroom::plan {

using Bytes = double;

inline std::uint64_t roundedBytes(Bytes value) {
    return value <= 0 ? 0 : static_cast<std::uint64_t>(value + 0.5);
}

} // namespace headroom::plan
