#pragma once

// GPT-2's byte-to-character alphabet: every byte becomes a printable character, so any text
// has a byte-level spelling made of 256 symbols.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace headroom::tokenizers {

// The character byte b is spelled as.
char32_t byteToChar(std::uint8_t b);
// The byte a byte-level character stands for, or -1.
int charToByte(char32_t c);
// The UTF-8 spelling of every byte of `bytes`.
std::string byteLevelEncode(std::string_view bytes);
void appendByteLevel(std::string &out, std::string_view bytes);
// Back to bytes; false when a character is not in the alphabet.
bool byteLevelDecode(std::string_view text, std::string &out);

// The GPT-2 pre-tokenizer pattern.
extern const char *const kByteLevelPattern;

} // namespace headroom::tokenizers
