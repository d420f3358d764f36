#include "tokenizers/unicode.h"

#include <stdexcept>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/ustring.h>

namespace headroom::tokenizers {

void appendUtf8(std::string &out, char32_t c) {
    if (c < 0x80) {
        out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (c >> 6)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (c >> 12)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (c >> 18)));
        out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
}

char32_t previousChar(std::string_view text, std::size_t end, std::size_t &start) {
    start = end - 1;
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) {
        --start;
    }
    std::size_t pos = start;
    return nextChar(text, pos);
}

namespace {

// Length of the valid UTF-8 sequence at bytes[pos], or 0 with `bad` set to the length of the
// maximal invalid subpart (at least 1).
std::size_t validSequence(std::string_view bytes, std::size_t pos, std::size_t &bad) {
    const auto b0 = static_cast<unsigned char>(bytes[pos]);
    bad = 1;
    if (b0 < 0x80) {
        return 1;
    }
    std::size_t need;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        need = 1;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        need = 2;
        if (b0 == 0xE0) {
            lo = 0xA0;
        } else if (b0 == 0xED) {
            hi = 0x9F;
        }
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        need = 3;
        if (b0 == 0xF0) {
            lo = 0x90;
        } else if (b0 == 0xF4) {
            hi = 0x8F;
        }
    } else {
        return 0;
    }
    for (std::size_t i = 1; i <= need; ++i) {
        if (pos + i >= bytes.size()) {
            bad = i;
            return 0;
        }
        const auto b = static_cast<unsigned char>(bytes[pos + i]);
        const unsigned char l = i == 1 ? lo : 0x80, h = i == 1 ? hi : 0xBF;
        if (b < l || b > h) {
            bad = i;
            return 0;
        }
    }
    return need + 1;
}

} // namespace

std::size_t findInvalidUtf8(std::string_view text) {
    std::size_t pos = 0, bad = 0;
    while (pos < text.size()) {
        if (static_cast<unsigned char>(text[pos]) < 0x80) {
            ++pos;
            continue;
        }
        const std::size_t n = validSequence(text, pos, bad);
        if (n == 0) {
            return pos;
        }
        pos += n;
    }
    return text.size();
}

std::string utf8Lossy(std::string_view bytes) {
    std::string out;
    out.reserve(bytes.size());
    std::size_t pos = 0, bad = 0;
    while (pos < bytes.size()) {
        const std::size_t n = validSequence(bytes, pos, bad);
        if (n == 0) {
            out += "\xEF\xBF\xBD";
            pos += bad;
        } else {
            out.append(bytes.data() + pos, n);
            pos += n;
        }
    }
    return out;
}

std::size_t countChars(std::string_view text) {
    std::size_t n = 0;
    for (const char c : text) {
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }
    return n;
}

namespace {

// The reference's punctuation, control and mark tests come from the unicode_categories crate,
// whose tables stop at Unicode 8.0: characters assigned later are none of these there.
bool inUnicode8(char32_t c) {
    UVersionInfo age;
    u_charAge(static_cast<UChar32>(c), age);
    return age[0] < 8 || (age[0] == 8 && age[1] == 0);
}

} // namespace

bool isWhitespace(char32_t c) {
    if (c < 0x80) {
        return c == ' ' || (c >= 0x09 && c <= 0x0D);
    }
    return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_WHITE_SPACE);
}

bool isAlphabetic(char32_t c) {
    if (c < 0x80) {
        return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
    }
    return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_ALPHABETIC);
}

bool isNumeric(char32_t c) {
    if (c < 0x80) {
        return c >= '0' && c <= '9';
    }
    const auto type = u_charType(static_cast<UChar32>(c));
    return type == U_DECIMAL_DIGIT_NUMBER || type == U_LETTER_NUMBER || type == U_OTHER_NUMBER;
}

bool isAlphanumeric(char32_t c) {
    return isAlphabetic(c) || isNumeric(c);
}

bool isPunctuation(char32_t c) {
    if (c < 0x80) {
        return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
               (c >= 123 && c <= 126);
    }
    const auto mask = U_GET_GC_MASK(static_cast<UChar32>(c));
    return (mask & U_GC_P_MASK) != 0 && inUnicode8(c);
}

bool isControl(char32_t c) {
    if (c == '\t' || c == '\n' || c == '\r') {
        return false;
    }
    // Cc, Cf, Co (and Cs): the reference's unicode_categories is_other() leaves out unassigned
    // code points (Cn), so U+FFF8 survives clean_text there.
    const auto mask = U_GET_GC_MASK(static_cast<UChar32>(c));
    return (mask & (U_GC_CC_MASK | U_GC_CF_MASK | U_GC_CO_MASK | U_GC_CS_MASK)) != 0 &&
           inUnicode8(c);
}

bool isBertWhitespace(char32_t c) {
    if (c == '\t' || c == '\n' || c == '\r' || c == ' ') {
        return true;
    }
    const auto mask = U_GET_GC_MASK(static_cast<UChar32>(c));
    return (mask & U_GC_Z_MASK) != 0;
}

bool isChineseChar(char32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
           (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
           (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool isMarkNonspacing(char32_t c) {
    return c >= 0x300 && u_charType(static_cast<UChar32>(c)) == U_NON_SPACING_MARK && inUnicode8(c);
}

bool isWordChar(char32_t c) {
    if (c < 0x80) {
        return isAlphanumeric(c) || c == '_';
    }
    const auto mask = U_GET_GC_MASK(static_cast<UChar32>(c));
    return isAlphanumeric(c) || (mask & (U_GC_M_MASK | U_GC_PC_MASK)) != 0 ||
           u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_JOIN_CONTROL);
}

void appendLowercase(std::string &out, char32_t c) {
    if (c < 0x80) {
        out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
        return;
    }
    UChar source[2];
    int32_t length = 0;
    U16_APPEND_UNSAFE(source, length, static_cast<UChar32>(c));
    UChar lowered[8];
    UErrorCode status = U_ZERO_ERROR;
    const int32_t n = u_strToLower(lowered, 8, source, length, "", &status);
    if (U_FAILURE(status)) {
        appendUtf8(out, c);
        return;
    }
    for (int32_t i = 0; i < n;) {
        UChar32 cp;
        U16_NEXT(lowered, i, n, cp);
        appendUtf8(out, static_cast<char32_t>(cp));
    }
}

std::string lowercase(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t pos = 0; pos < text.size();) {
        appendLowercase(out, nextChar(text, pos));
    }
    return out;
}

std::string normalize(std::string_view text, NormalForm form) {
    bool ascii = true;
    for (const char c : text) {
        if (static_cast<unsigned char>(c) >= 0x80) {
            ascii = false;
            break;
        }
    }
    if (ascii) {
        return std::string(text);
    }
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2 *normalizer = nullptr;
    switch (form) {
    case NormalForm::NFC:
        normalizer = icu::Normalizer2::getNFCInstance(status);
        break;
    case NormalForm::NFD:
        normalizer = icu::Normalizer2::getNFDInstance(status);
        break;
    case NormalForm::NFKC:
        normalizer = icu::Normalizer2::getNFKCInstance(status);
        break;
    case NormalForm::NFKD:
        normalizer = icu::Normalizer2::getNFKDInstance(status);
        break;
    }
    if (U_FAILURE(status) || normalizer == nullptr) {
        throw std::runtime_error("Unicode normalization is not available (ICU data missing)");
    }
    const icu::UnicodeString source = icu::UnicodeString::fromUTF8(
        icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
    const icu::UnicodeString result = normalizer->normalize(source, status);
    if (U_FAILURE(status)) {
        throw std::runtime_error("Unicode normalization failed");
    }
    std::string out;
    result.toUTF8String(out);
    return out;
}

} // namespace headroom::tokenizers
