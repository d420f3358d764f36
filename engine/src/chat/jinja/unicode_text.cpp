#include "chat/jinja/unicode_text.h"

#include <memory>
#include <unicode/ucasemap.h>
#include <unicode/uchar.h>

namespace headroom::chat::jinja::text {

char32_t decodeAt(std::string_view s, std::size_t &pos) {
    const auto byte = [&](std::size_t i) {
        return static_cast<unsigned char>(s[i]);
    };
    const unsigned char lead = byte(pos);
    if (lead < 0x80) {
        ++pos;
        return lead;
    }
    int length = 0;
    char32_t cp = 0;
    char32_t minimum = 0;
    if ((lead & 0xE0) == 0xC0) {
        length = 2, cp = lead & 0x1F, minimum = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
        length = 3, cp = lead & 0x0F, minimum = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
        length = 4, cp = lead & 0x07, minimum = 0x10000;
    } else {
        ++pos;
        return kReplacement;
    }
    if (pos + static_cast<std::size_t>(length) > s.size()) {
        ++pos;
        return kReplacement;
    }
    for (int i = 1; i < length; ++i) {
        const unsigned char next = byte(pos + static_cast<std::size_t>(i));
        if ((next & 0xC0) != 0x80) {
            ++pos;
            return kReplacement;
        }
        cp = (cp << 6) | (next & 0x3F);
    }
    if (cp < minimum || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        ++pos;
        return kReplacement;
    }
    pos += static_cast<std::size_t>(length);
    return cp;
}

void appendUtf8(std::string &out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

bool isAscii(std::string_view s) {
    for (const char c : s) {
        if (static_cast<unsigned char>(c) >= 0x80) {
            return false;
        }
    }
    return true;
}

std::size_t codePointCount(std::string_view s) {
    if (isAscii(s)) {
        return s.size();
    }
    std::size_t count = 0;
    for (std::size_t pos = 0; pos < s.size(); ++count) {
        decodeAt(s, pos);
    }
    return count;
}

std::size_t byteOffsetOfCodePoint(std::string_view s, std::size_t index) {
    std::size_t pos = 0;
    for (std::size_t i = 0; i < index && pos < s.size(); ++i) {
        decodeAt(s, pos);
    }
    return pos;
}

bool isPythonSpace(char32_t cp) {
    switch (cp) {
    case 0x09:
    case 0x0A:
    case 0x0B:
    case 0x0C:
    case 0x0D:
    case 0x1C:
    case 0x1D:
    case 0x1E:
    case 0x1F:
    case 0x20:
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
        return true;
    default:
        return cp >= 0x2000 && cp <= 0x200A;
    }
}

bool isLineBreak(char32_t cp) {
    switch (cp) {
    case 0x0A:
    case 0x0B:
    case 0x0C:
    case 0x0D:
    case 0x1C:
    case 0x1D:
    case 0x1E:
    case 0x85:
    case 0x2028:
    case 0x2029:
        return true;
    default:
        return false;
    }
}

bool isPrintable(char32_t cp) {
    if (cp < 0x80) {
        return cp >= 0x20 && cp < 0x7F;
    }
    switch (u_charType(static_cast<UChar32>(cp))) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
    case U_SURROGATE:
    case U_PRIVATE_USE_CHAR:
    case U_UNASSIGNED:
    case U_LINE_SEPARATOR:
    case U_PARAGRAPH_SEPARATOR:
    case U_SPACE_SEPARATOR:
        return false;
    default:
        return true;
    }
}

bool isAlpha(char32_t cp) {
    if (cp < 0x80) {
        return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
    }
    switch (u_charType(static_cast<UChar32>(cp))) {
    case U_UPPERCASE_LETTER:
    case U_LOWERCASE_LETTER:
    case U_TITLECASE_LETTER:
    case U_MODIFIER_LETTER:
    case U_OTHER_LETTER:
        return true;
    default:
        return false;
    }
}

bool isDecimal(char32_t cp) {
    if (cp < 0x80) {
        return cp >= '0' && cp <= '9';
    }
    return u_charType(static_cast<UChar32>(cp)) == U_DECIMAL_DIGIT_NUMBER;
}

bool isDigit(char32_t cp) {
    if (cp < 0x80) {
        return cp >= '0' && cp <= '9';
    }
    const auto type = u_getIntPropertyValue(static_cast<UChar32>(cp), UCHAR_NUMERIC_TYPE);
    return type == U_NT_DECIMAL || type == U_NT_DIGIT;
}

bool isNumeric(char32_t cp) {
    if (cp < 0x80) {
        return cp >= '0' && cp <= '9';
    }
    return u_getIntPropertyValue(static_cast<UChar32>(cp), UCHAR_NUMERIC_TYPE) != U_NT_NONE;
}

bool isWordChar(char32_t cp) {
    return cp == '_' || isAlpha(cp) || isNumeric(cp);
}

bool isUpper(char32_t cp) {
    if (cp < 0x80) {
        return cp >= 'A' && cp <= 'Z';
    }
    return u_hasBinaryProperty(static_cast<UChar32>(cp), UCHAR_UPPERCASE) != 0;
}

bool isLower(char32_t cp) {
    if (cp < 0x80) {
        return cp >= 'a' && cp <= 'z';
    }
    return u_hasBinaryProperty(static_cast<UChar32>(cp), UCHAR_LOWERCASE) != 0;
}

bool isCased(char32_t cp) {
    if (cp < 0x80) {
        return isUpper(cp) || isLower(cp);
    }
    return u_hasBinaryProperty(static_cast<UChar32>(cp), UCHAR_CASED) != 0;
}

namespace {

struct CaseMapCloser {
    void operator()(UCaseMap *map) const { ucasemap_close(map); }
};

// ICU's root-locale case maps: the language-independent mappings Python applies.
UCaseMap *rootCaseMap(bool title) {
    thread_local std::unique_ptr<UCaseMap, CaseMapCloser> plain, titles;
    auto &slot = title ? titles : plain;
    if (!slot) {
        UErrorCode status = U_ZERO_ERROR;
        const uint32_t options =
            title ? (U_TITLECASE_NO_LOWERCASE | U_TITLECASE_NO_BREAK_ADJUSTMENT) : 0;
        slot.reset(ucasemap_open("", options, &status));
        if (U_FAILURE(status)) {
            slot.reset();
        }
    }
    return slot.get();
}

enum class CaseMapping { Upper, Lower, Title };

std::string icuMap(std::string_view s, CaseMapping mapping) {
    UCaseMap *map = rootCaseMap(mapping == CaseMapping::Title);
    if (map == nullptr || s.size() > 0x3FFFFFFF) {
        return std::string(s);
    }
    std::string out(s.size() + 16, '\0');
    for (int attempt = 0; attempt < 2; ++attempt) {
        UErrorCode status = U_ZERO_ERROR;
        const auto capacity = static_cast<int32_t>(out.size());
        const auto length = static_cast<int32_t>(s.size());
        int32_t written = 0;
        if (mapping == CaseMapping::Upper) {
            written = ucasemap_utf8ToUpper(map, out.data(), capacity, s.data(), length, &status);
        } else if (mapping == CaseMapping::Lower) {
            written = ucasemap_utf8ToLower(map, out.data(), capacity, s.data(), length, &status);
        } else {
            written = ucasemap_utf8ToTitle(map, out.data(), capacity, s.data(), length, &status);
        }
        if (status == U_BUFFER_OVERFLOW_ERROR) {
            out.assign(static_cast<std::size_t>(written) + 1, '\0');
            continue;
        }
        if (U_FAILURE(status)) {
            return std::string(s);
        }
        out.resize(static_cast<std::size_t>(written));
        return out;
    }
    return std::string(s);
}

std::string mapOne(char32_t cp, CaseMapping mapping) {
    std::string one;
    appendUtf8(one, cp);
    if (cp < 0x80) {
        if (mapping == CaseMapping::Lower) {
            one[0] = static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp);
        } else {
            one[0] = static_cast<char>(cp >= 'a' && cp <= 'z' ? cp - 32 : cp);
        }
        return one;
    }
    return icuMap(one, mapping);
}

} // namespace

std::string toUpper(std::string_view s) {
    if (isAscii(s)) {
        std::string out(s);
        for (char &c : out) {
            if (c >= 'a' && c <= 'z') {
                c = static_cast<char>(c - 32);
            }
        }
        return out;
    }
    return icuMap(s, CaseMapping::Upper);
}

std::string toLower(std::string_view s) {
    if (isAscii(s)) {
        std::string out(s);
        for (char &c : out) {
            if (c >= 'A' && c <= 'Z') {
                c = static_cast<char>(c + 32);
            }
        }
        return out;
    }
    return icuMap(s, CaseMapping::Lower);
}

std::string titleOf(char32_t cp) {
    return mapOne(cp, CaseMapping::Title);
}

std::string capitalize(std::string_view s) {
    if (s.empty()) {
        return {};
    }
    std::size_t pos = 0;
    const char32_t first = decodeAt(s, pos);
    return titleOf(first) + toLower(s.substr(pos));
}

std::string pythonTitle(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    bool previousCased = false;
    for (std::size_t pos = 0; pos < s.size();) {
        const char32_t cp = decodeAt(s, pos);
        out += previousCased ? mapOne(cp, CaseMapping::Lower) : titleOf(cp);
        previousCased = isCased(cp);
    }
    return out;
}

std::string swapCase(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t pos = 0; pos < s.size();) {
        const char32_t cp = decodeAt(s, pos);
        if (isUpper(cp)) {
            out += mapOne(cp, CaseMapping::Lower);
        } else if (isLower(cp)) {
            out += mapOne(cp, CaseMapping::Upper);
        } else {
            appendUtf8(out, cp);
        }
    }
    return out;
}

std::string_view strip(std::string_view s, const std::string_view *chars, StripSide side) {
    const auto strips = [&](char32_t cp) {
        if (chars == nullptr) {
            return isPythonSpace(cp);
        }
        for (std::size_t pos = 0; pos < chars->size();) {
            if (decodeAt(*chars, pos) == cp) {
                return true;
            }
        }
        return false;
    };
    std::size_t begin = 0;
    std::size_t end = s.size();
    if (side != StripSide::Right) {
        while (begin < end) {
            std::size_t next = begin;
            if (!strips(decodeAt(s, next))) {
                break;
            }
            begin = next;
        }
    }
    if (side != StripSide::Left) {
        while (end > begin) {
            // Step back to the start of the last code point.
            std::size_t start = end - 1;
            while (start > begin && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80 &&
                   end - start < 4) {
                --start;
            }
            std::size_t probe = start;
            char32_t cp = decodeAt(s, probe);
            if (probe != end) { // not a whole code point: treat the last byte alone
                start = end - 1;
                probe = start;
                cp = decodeAt(s, probe);
            }
            if (!strips(cp)) {
                break;
            }
            end = start;
        }
    }
    return s.substr(begin, end - begin);
}

} // namespace headroom::chat::jinja::text
