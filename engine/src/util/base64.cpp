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

std::optional<std::string> base64Decode(std::string_view text) {
    if (text.size() % 4 != 0) {
        return std::nullopt;
    }
    auto value = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') {
            return c - 'A';
        }
        if (c >= 'a' && c <= 'z') {
            return c - 'a' + 26;
        }
        if (c >= '0' && c <= '9') {
            return c - '0' + 52;
        }
        return c == '+' ? 62 : c == '/' ? 63 : -1;
    };
    std::string bytes;
    bytes.reserve(text.size() / 4 * 3);
    for (std::size_t i = 0; i < text.size(); i += 4) {
        const bool last = i + 4 == text.size();
        const std::size_t padding =
            last ? (text[i + 3] == '=' ? 1u : 0u) + (text[i + 2] == '=' ? 1u : 0u) : 0u;
        if (padding == 1 && text[i + 2] == '=') {
            return std::nullopt; // "x=y=" or similar
        }
        std::uint32_t word = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            const int v = k >= 4 - padding ? 0 : value(text[i + k]);
            if (v < 0) {
                return std::nullopt;
            }
            word = (word << 6) | static_cast<std::uint32_t>(v);
        }
        if ((padding == 1 && (word & 0xFFu) != 0) || (padding == 2 && (word & 0xFFFFu) != 0)) {
            return std::nullopt; // unused bits set: not the canonical encoding
        }
        bytes += static_cast<char>(word >> 16);
        if (padding < 2) {
            bytes += static_cast<char>((word >> 8) & 0xFF);
        }
        if (padding < 1) {
            bytes += static_cast<char>(word & 0xFF);
        }
    }
    return bytes;
}

} // namespace headroom::util
