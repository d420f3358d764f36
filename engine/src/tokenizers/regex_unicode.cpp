#include "tokenizers/regex_unicode.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <cstdio>
#include <map>
#include <pcre2.h>
#include <unicode/uchar.h>
#include <vector>

namespace headroom::tokenizers {

namespace {

using Ranges = std::vector<std::pair<char32_t, char32_t>>;

// General category (ICU's UCharCategory) -> code points that ICU assigns to it and PCRE2's
// tables leave unassigned.
const std::map<int, Ranges> &newerAssignments() {
    static const std::map<int, Ranges> table = [] {
        std::map<int, Ranges> result;
        int error = 0;
        PCRE2_SIZE offset = 0;
        pcre2_code *unassigned =
            pcre2_compile(reinterpret_cast<PCRE2_SPTR>("^\\p{Cn}$"), PCRE2_ZERO_TERMINATED,
                          PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
        if (unassigned == nullptr) {
            return result;
        }
        pcre2_match_data *data = pcre2_match_data_create(1, nullptr);
        for (UChar32 c = 0x80; c <= 0x10FFFF; ++c) {
            if (c >= 0xD800 && c <= 0xDFFF) {
                continue;
            }
            UVersionInfo age;
            u_charAge(c, age);
            const int type = u_charType(c);
            if (age[0] < 12 || type == U_UNASSIGNED) {
                continue; // PCRE2 10.42 knows Unicode 14; only later characters can differ
            }
            char utf8[4];
            int32_t length = 0;
            UBool failed = false;
            U8_APPEND(reinterpret_cast<uint8_t *>(utf8), length, 4, c, failed);
            if (failed || pcre2_match(unassigned, reinterpret_cast<PCRE2_SPTR>(utf8),
                                      static_cast<PCRE2_SIZE>(length), 0, 0, data, nullptr) < 0) {
                continue;
            }
            Ranges &ranges = result[type];
            if (!ranges.empty() && ranges.back().second + 1 == static_cast<char32_t>(c)) {
                ranges.back().second = static_cast<char32_t>(c);
            } else {
                ranges.emplace_back(static_cast<char32_t>(c), static_cast<char32_t>(c));
            }
        }
        pcre2_match_data_free(data);
        pcre2_code_free(unassigned);
        return result;
    }();
    return table;
}

// The class members (`\x{..}-\x{..}`) to add for general category `name`, or "".
std::string supplement(const std::string &name) {
    const int32_t mask = u_getPropertyValueEnum(UCHAR_GENERAL_CATEGORY_MASK, name.c_str());
    if (mask == UCHAR_INVALID_CODE || (mask & U_GC_CN_MASK) != 0) {
        return {};
    }
    std::string out;
    for (const auto &[type, ranges] : newerAssignments()) {
        if ((mask & U_MASK(type)) == 0) {
            continue;
        }
        for (const auto &[first, last] : ranges) {
            char buffer[40];
            std::snprintf(buffer, sizeof buffer, "\\x{%X}-\\x{%X}", static_cast<unsigned>(first),
                          static_cast<unsigned>(last));
            out += buffer;
        }
    }
    return out;
}

} // namespace

std::string withNewerUnicode(const std::string &pattern) {
    std::string out;
    out.reserve(pattern.size());
    bool in_class = false;
    std::size_t class_start = 0;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c == '\\' && i + 1 < pattern.size()) {
            const char kind = pattern[i + 1];
            if ((kind == 'p' || kind == 'P') && i + 2 < pattern.size()) {
                std::string name;
                std::size_t end;
                if (pattern[i + 2] == '{') {
                    end = pattern.find('}', i + 3);
                    if (end == std::string::npos) {
                        return pattern;
                    }
                    name = pattern.substr(i + 3, end - i - 3);
                } else {
                    end = i + 2;
                    name = pattern.substr(i + 2, 1);
                }
                const std::string property = pattern.substr(i, end + 1 - i);
                const std::string extra = name.empty() || name[0] == '^' ? "" : supplement(name);
                if (extra.empty() || (in_class && kind == 'P')) {
                    out += property;
                } else if (in_class) {
                    out += property + extra;
                } else {
                    out +=
                        std::string(kind == 'P' ? "[^" : "[") + "\\p{" + name + "}" + extra + "]";
                }
                i = end;
                continue;
            }
            out += pattern.substr(i, 2);
            ++i;
            continue;
        }
        if (!in_class && c == '[') {
            in_class = true;
            class_start = out.size();
        } else if (in_class && c == ']') {
            // A ']' first in a class ("[]" or "[^]") is a literal.
            const std::size_t length = out.size() - class_start;
            const bool first = length == 1 || (length == 2 && out[class_start + 1] == '^');
            if (!first) {
                in_class = false;
            }
        } else if (in_class && c == '[' && i + 1 < pattern.size() && pattern[i + 1] == ':') {
            const std::size_t end = pattern.find(":]", i + 2);
            if (end != std::string::npos) { // a POSIX class [:alpha:] inside a class
                out += pattern.substr(i, end + 2 - i);
                i = end + 1;
                continue;
            }
        }
        out.push_back(c);
    }
    return out;
}

} // namespace headroom::tokenizers
