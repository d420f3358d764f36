#include "util/base64.h"

#include <cstdint>

namespace headroom::util {

std::string base64Encode(const std::string &bytes) {
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string text;
    text.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const std::uint32_t word = (std::uint32_t{static_cast<unsigned char>(bytes[i])} << 16) |
                                   (std::uint32_t{static_cast<unsigned char>(bytes[i + 1])} << 8) |
                                   std::uint32_t{static_cast<unsigned char>(bytes[i + 2])};
        text += alphabet[(word >> 18) & 63];
        text += alphabet[(word >> 12) & 63];
        text += alphabet[(word >> 6) & 63];
        text += alphabet[word & 63];
    }
    const std::size_t rest = bytes.size() - i;
    if (rest > 0) {
        std::uint32_t word = std::uint32_t{static_cast<unsigned char>(bytes[i])} << 16;
        if (rest == 2) {
            word |= std::uint32_t{static_cast<unsigned char>(bytes[i + 1])} << 8;
        }
        text += alphabet[(word >> 18) & 63];
        text += alphabet[(word >> 12) & 63];
        text += rest == 2 ? alphabet[(word >> 6) & 63] : '=';
        text += '=';
    }
    return text;
}

} // namespace headroom::util
