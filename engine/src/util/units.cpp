#include <headroom/units.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

namespace headroom {

std::string formatBytes(std::uint64_t bytes) {
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    if (bytes < 1024) {
        return std::to_string(bytes) + " B";
    }
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 5) {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    return text;
}

std::optional<std::uint64_t> parseBytes(const std::string &text) {
    std::size_t pos = 0;
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) {
        ++pos;
    }
    const std::size_t number_start = pos;
    bool seen_digit = false;
    bool seen_point = false;
    while (pos < text.size()) {
        const char c = text[pos];
        if (std::isdigit(static_cast<unsigned char>(c))) {
            seen_digit = true;
        } else if (c == '.' && !seen_point) {
            seen_point = true;
        } else {
            break;
        }
        ++pos;
    }
    if (!seen_digit) {
        return std::nullopt;
    }
    const double number = std::stod(text.substr(number_start, pos - number_start));
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) {
        ++pos;
    }
    std::string suffix;
    for (; pos < text.size(); ++pos) {
        if (std::isspace(static_cast<unsigned char>(text[pos]))) {
            break;
        }
        suffix += static_cast<char>(std::tolower(static_cast<unsigned char>(text[pos])));
    }
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) {
        ++pos;
    }
    if (pos != text.size()) {
        return std::nullopt;
    }
    struct Suffix {
        const char *name;
        double factor;
    };
    static const Suffix suffixes[] = {{"", 1.0},
                                      {"b", 1.0},
                                      {"k", 1024.0},
                                      {"kb", 1e3},
                                      {"kib", 1024.0},
                                      {"m", 1048576.0},
                                      {"mb", 1e6},
                                      {"mib", 1048576.0},
                                      {"g", 1073741824.0},
                                      {"gb", 1e9},
                                      {"gib", 1073741824.0},
                                      {"t", 1099511627776.0},
                                      {"tb", 1e12},
                                      {"tib", 1099511627776.0}};
    for (const Suffix &candidate : suffixes) {
        if (suffix == candidate.name) {
            const double bytes = std::round(number * candidate.factor);
            if (!(bytes >= 0.0) ||
                bytes >= static_cast<double>(std::numeric_limits<std::uint64_t>::max())) {
                return std::nullopt;
            }
            return static_cast<std::uint64_t>(bytes);
        }
    }
    return std::nullopt;
}

} // namespace headroom
