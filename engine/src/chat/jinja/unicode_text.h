#pragma once

// UTF-8 text as Python's str sees it: code points, whitespace, case mapping, printability.
// Invalid UTF-8 never throws: each stray byte counts as one code point (U+FFFD when decoded).

#include <cstddef>
#include <string>
#include <string_view>

namespace headroom::chat::jinja::text {

constexpr char32_t kReplacement = 0xFFFD;

// Decodes the code point at `pos` and advances `pos` past it (one byte for invalid input).
char32_t decodeAt(std::string_view s, std::size_t &pos);
void appendUtf8(std::string &out, char32_t cp);

bool isAscii(std::string_view s);
std::size_t codePointCount(std::string_view s);
// Byte offset of code point `index` (clamped to s.size()).
std::size_t byteOffsetOfCodePoint(std::string_view s, std::size_t index);

// str.isspace() / the \s of Python's re module.
bool isPythonSpace(char32_t cp);
// The line boundaries of str.splitlines().
bool isLineBreak(char32_t cp);
// str.isprintable() for one code point (repr escapes the others).
bool isPrintable(char32_t cp);
// \w of Python's re module (str.isalnum() or '_').
bool isWordChar(char32_t cp);
bool isAlpha(char32_t cp);
bool isDecimal(char32_t cp);
bool isDigit(char32_t cp);
bool isNumeric(char32_t cp);
bool isUpper(char32_t cp);
bool isLower(char32_t cp);
bool isCased(char32_t cp);

// Full Unicode case mappings, as Python's str.upper()/lower() apply them.
std::string toUpper(std::string_view s);
std::string toLower(std::string_view s);
// The title case of one code point (str.capitalize and str.title use it for word starts).
std::string titleOf(char32_t cp);
// Python's str.capitalize(), str.title() and str.swapcase().
std::string capitalize(std::string_view s);
std::string pythonTitle(std::string_view s);
std::string swapCase(std::string_view s);

// Python's str.strip(chars) family: `chars` null strips whitespace.
enum class StripSide { Both, Left, Right };
std::string_view strip(std::string_view s, const std::string_view *chars, StripSide side);

} // namespace headroom::chat::jinja::text
