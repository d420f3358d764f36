#include "data/number_parse.h"

#include <cctype>
#include <charconv> // defines __cpp_lib_to_chars where floating-point from_chars exists
#include <cmath>
#include <locale>
#include <sstream>

namespace headroom::data {
namespace {

bool isSpace(char c) {
    return c == ' ' || c == '\t';
}

} // namespace

bool isMissingCell(const std::string &cell) {
    for (const char c : cell) {
        if (!isSpace(c)) {
            return false;
        }
    }
    return true;
}

bool parseNumber(const std::string &cell, double &value) {
    std::size_t first = 0;
    std::size_t last = cell.size();
    while (first < last && isSpace(cell[first])) {
        ++first;
    }
    while (last > first && isSpace(cell[last - 1])) {
        --last;
    }
    if (first < last && cell[first] == '+') {
        ++first; // from_chars refuses a leading '+', people write it
    }
    if (first == last) {
        return false;
    }
    const char c = cell[first];
    // Only digits, sign and point may start a number; rejects "nan", "inf", "0x..." spelling.
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.')) {
        return false;
    }
#if defined(__cpp_lib_to_chars)
    const char *begin = cell.data() + first;
    const char *end = cell.data() + last;
    const auto result = std::from_chars(begin, end, value);
    if (result.ec != std::errc() || result.ptr != end) {
        return false;
    }
#else
    std::istringstream stream(cell.substr(first, last - first));
    stream.imbue(std::locale::classic());
    stream >> value;
    if (stream.fail() || stream.peek() != std::char_traits<char>::eof()) {
        return false;
    }
#endif
    return std::isfinite(value);
}

} // namespace headroom::data
