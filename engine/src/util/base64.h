#pragma once

#include <string>

namespace headroom::util {

// Standard base64 (RFC 4648, with padding): binary blobs inside text formats.
std::string base64Encode(const std::string &bytes);

} // namespace headroom::util
