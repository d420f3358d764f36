#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace headroom::util {

// Standard base64 (RFC 4648, with padding): binary blobs inside text formats.
std::string base64Encode(const std::string &bytes);
// Strict decoding, as Rust's base64 STANDARD engine: padding required, no whitespace, unused
// bits of the last symbol zero. std::nullopt for anything else.
std::optional<std::string> base64Decode(std::string_view text);

} // namespace headroom::util
