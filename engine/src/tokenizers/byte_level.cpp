#include "tokenizers/byte_level.h"

#include "tokenizers/unicode.h"

namespace headroom::tokenizers {

const char *const kByteLevelPattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

namespace {

struct Alphabet {
    std::array<char32_t, 256> to_char{};
    std::array<std::string, 256> spelled;
    std::array<std::int16_t, 512> to_byte{};

    Alphabet() {
        to_byte.fill(-1);
        char32_t next = 256;
        for (int b = 0; b < 256; ++b) {
            const bool printable =
                (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            const char32_t c = printable ? static_cast<char32_t>(b) : next++;
            to_char[b] = c;
            to_byte[c] = static_cast<std::int16_t>(b);
            appendUtf8(spelled[b], c);
        }
    }
};

const Alphabet &alphabet() {
    static const Alphabet instance;
    return instance;
}

} // namespace

char32_t byteToChar(std::uint8_t b) {
    return alphabet().to_char[b];
}

int charToByte(char32_t c) {
    return c < 512 ? alphabet().to_byte[c] : -1;
}

void appendByteLevel(std::string &out, std::string_view bytes) {
    const Alphabet &a = alphabet();
    for (const char b : bytes) {
        out += a.spelled[static_cast<std::uint8_t>(b)];
    }
}

std::string byteLevelEncode(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size() * 2);
    appendByteLevel(out, bytes);
    return out;
}

bool byteLevelDecode(std::string_view text, std::string &out) {
    const std::size_t mark = out.size();
    for (std::size_t pos = 0; pos < text.size();) {
        const int b = charToByte(nextChar(text, pos));
        if (b < 0) {
            out.resize(mark);
            return false;
        }
        out.push_back(static_cast<char>(b));
    }
    return true;
}

} // namespace headroom::tokenizers
