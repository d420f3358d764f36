// The value of a string literal in a template: Python's
// literal.encode("ascii", "backslashreplace").decode("unicode-escape"), as jinja2's lexer does it.

#include "chat/jinja/lexer.h"
#include "chat/jinja/template.h"
#include "chat/jinja/unicode_text.h"

#include <unicode/uchar.h>

namespace headroom::chat::jinja::detail {

namespace {

[[noreturn]] void failLiteral(const std::string &message, int line) {
    throw TemplateError(message, line);
}

bool isDecimalDigit(char c) {
    return c >= '0' && c <= '9';
}

} // namespace

std::string decodeStringLiteral(std::string_view body, int line) {
    std::string ascii;
    ascii.reserve(body.size());
    for (std::size_t i = 0; i < body.size();) {
        if (static_cast<unsigned char>(body[i]) < 0x80) {
            ascii += body[i++];
            continue;
        }
        const char32_t cp = text::decodeAt(body, i);
        static constexpr char hex[] = "0123456789abcdef";
        const int digits = cp <= 0xFF ? 2 : (cp <= 0xFFFF ? 4 : 8);
        ascii += '\\';
        ascii += digits == 2 ? 'x' : (digits == 4 ? 'u' : 'U');
        for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
            ascii += hex[(cp >> shift) & 0xF];
        }
    }
    std::string out;
    out.reserve(ascii.size());
    for (std::size_t i = 0; i < ascii.size();) {
        const char c = ascii[i++];
        if (c != '\\') {
            out += c;
            continue;
        }
        if (i >= ascii.size()) {
            failLiteral("\\ at end of string", line);
        }
        const char e = ascii[i++];
        switch (e) {
        case '\n':
            break;
        case '\\':
            out += '\\';
            break;
        case '\'':
            out += '\'';
            break;
        case '"':
            out += '"';
            break;
        case 'a':
            out += '\a';
            break;
        case 'b':
            out += '\b';
            break;
        case 'f':
            out += '\f';
            break;
        case 'n':
            out += '\n';
            break;
        case 'r':
            out += '\r';
            break;
        case 't':
            out += '\t';
            break;
        case 'v':
            out += '\v';
            break;
        case 'x':
        case 'u':
        case 'U': {
            const std::size_t count = e == 'x' ? 2 : (e == 'u' ? 4 : 8);
            char32_t cp = 0;
            for (std::size_t k = 0; k < count; ++k) {
                const char h = i + k < ascii.size() ? ascii[i + k] : '\0';
                const char lower = static_cast<char>(h | 0x20);
                if (!isDecimalDigit(h) && !(lower >= 'a' && lower <= 'f')) {
                    failLiteral(std::string("truncated \\") + e + std::string(count, 'X') +
                                    " escape",
                                line);
                }
                cp =
                    cp * 16 + static_cast<char32_t>(isDecimalDigit(h) ? h - '0' : lower - 'a' + 10);
            }
            i += count;
            if (cp > 0x10FFFF) {
                failLiteral("illegal Unicode character", line);
            }
            text::appendUtf8(out, cp >= 0xD800 && cp <= 0xDFFF ? text::kReplacement : cp);
            break;
        }
        case 'N': {
            const std::size_t close = ascii.find('}', i);
            if (i >= ascii.size() || ascii[i] != '{' || close == std::string::npos) {
                failLiteral("malformed \\N character escape", line);
            }
            const std::string name = ascii.substr(i + 1, close - i - 1);
            UErrorCode status = U_ZERO_ERROR;
            const UChar32 cp = u_charFromName(U_UNICODE_CHAR_NAME, name.c_str(), &status);
            if (U_FAILURE(status) || cp < 0) {
                failLiteral("unknown Unicode character name", line);
            }
            text::appendUtf8(out, static_cast<char32_t>(cp));
            i = close + 1;
            break;
        }
        default:
            if (e >= '0' && e <= '7') {
                char32_t cp = static_cast<char32_t>(e - '0');
                for (int k = 0; k < 2 && i < ascii.size() && ascii[i] >= '0' && ascii[i] <= '7';
                     ++k) {
                    cp = cp * 8 + static_cast<char32_t>(ascii[i++] - '0');
                }
                text::appendUtf8(out, cp);
            } else {
                out += '\\';
                out += e;
            }
        }
    }
    return out;
}

} // namespace headroom::chat::jinja::detail
