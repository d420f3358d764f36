#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace headroom {

// "1.5 GiB", "512 MiB", "980 B": binary units, one decimal above KiB.
std::string formatBytes(std::uint64_t bytes);

// Parses "512MiB", "8GiB", "1.5 GB", "4096": binary and decimal suffixes, case-insensitive.
// Returns nothing for malformed text, negative numbers or values that overflow 64 bits.
std::optional<std::uint64_t> parseBytes(const std::string &text);

} // namespace headroom
