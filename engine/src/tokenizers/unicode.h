#pragma once

// Unicode helpers with the semantics of Rust's `char` methods, which the reference library
// (Hugging Face `tokenizers`) uses: general categories and properties come from ICU.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace headroom::tokenizers {

// Decodes the character starting at text[pos] (text must be valid UTF-8) and advances pos.
inline char32_t nextChar(std::string_view text, std::size_t &pos) {
    const auto b0 = static_cast<unsigned char>(text[pos]);
    if (b0 < 0x80) {
        ++pos;
        return b0;
    }
    auto cont = [&](std::size_t i) {
        return static_cast<unsigned char>(text[pos + i]) & 0x3Fu;
    };
    char32_t c;
    if (b0 < 0xE0) {
        c = ((b0 & 0x1Fu) << 6) | cont(1);
        pos += 2;
    } else if (b0 < 0xF0) {
        c = ((b0 & 0x0Fu) << 12) | (cont(1) << 6) | cont(2);
        pos += 3;
    } else {
        c = ((b0 & 0x07u) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3);
        pos += 4;
    }
    return c;
}

// Length in bytes of the UTF-8 character whose first byte is `lead`.
inline std::size_t charLength(unsigned char lead) {
    return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

void appendUtf8(std::string &out, char32_t c);

// The character ending at text[end] (exclusive); sets `start` to its first byte.
char32_t previousChar(std::string_view text, std::size_t end, std::size_t &start);

// Index of the first byte that is not part of well-formed UTF-8, or text.size().
std::size_t findInvalidUtf8(std::string_view text);

// Rust's String::from_utf8_lossy: every maximal invalid subpart becomes U+FFFD.
std::string utf8Lossy(std::string_view bytes);

std::size_t countChars(std::string_view text);

bool isWhitespace(char32_t c);   // char::is_whitespace (White_Space property)
bool isAlphabetic(char32_t c);   // char::is_alphabetic
bool isNumeric(char32_t c);      // char::is_numeric (Nd, Nl, No)
bool isAlphanumeric(char32_t c); // char::is_alphanumeric
// As the reference's unicode_categories crate (Unicode 8.0 tables) answers:
bool isPunctuation(char32_t c); // ASCII punctuation or general category P*
bool isControl(char32_t c);     // BERT: Cc Cf Co Cs except \t \n \r
bool isBertWhitespace(char32_t c);
bool isChineseChar(char32_t c);
bool isMarkNonspacing(char32_t c); // Mn (Unicode 8.0 tables, as isPunctuation)
bool isWordChar(char32_t c);       // regex \w: alphanumeric, marks, connector punctuation

// char::to_lowercase of every character (full mappings, no context).
void appendLowercase(std::string &out, char32_t c);
std::string lowercase(std::string_view text);

enum class NormalForm { NFC, NFD, NFKC, NFKD };
std::string normalize(std::string_view text, NormalForm form);

} // namespace headroom::tokenizers
