// Python's printf-style `%` formatting and its int()/float() string parsing.

#include "chat/jinja/python_text.h"
#include "chat/jinja/unicode_text.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace headroom::chat::jinja {

namespace {

[[noreturn]] void failFormat(const std::string &message) {
    throw TemplateError(message, 0);
}

struct PercentSpec {
    bool left = false, plus = false, space = false, zero = false, alternate = false;
    int width = -1;
    int precision = -1;
    char type = 's';
};

std::string formatDouble(double d, char type, int precision) {
    if (std::isnan(d) || std::isinf(d)) {
        std::string out = std::isnan(d) ? "nan" : (d < 0 ? "-inf" : "inf");
        if (type == 'E' || type == 'F' || type == 'G') {
            for (char &c : out) {
                c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            }
        }
        return out;
    }
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(type)));
    const auto format = lower == 'e'   ? std::chars_format::scientific
                        : lower == 'g' ? std::chars_format::general
                                       : std::chars_format::fixed;
    if (lower == 'g' && precision == 0) {
        precision = 1;
    }
    std::string out(400, '\0');
    auto result = std::to_chars(out.data(), out.data() + out.size(), d, format, precision);
    if (result.ec != std::errc()) {
        out.resize(4096);
        result = std::to_chars(out.data(), out.data() + out.size(), d, format, precision);
        if (result.ec != std::errc()) {
            failFormat("number too large to format");
        }
    }
    out.resize(static_cast<std::size_t>(result.ptr - out.data()));
    if (type == 'E' || type == 'G') {
        for (char &c : out) {
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        }
    }
    return out;
}

// Pads `body` (already carrying its sign) to the spec's width.
std::string padded(std::string body, const PercentSpec &spec, bool numeric) {
    const std::size_t length = text::codePointCount(body);
    if (spec.width < 0 || length >= static_cast<std::size_t>(spec.width)) {
        return body;
    }
    const std::size_t fill = static_cast<std::size_t>(spec.width) - length;
    if (spec.left) {
        return body + std::string(fill, ' ');
    }
    if (spec.zero && numeric) {
        const std::size_t sign =
            !body.empty() && (body[0] == '-' || body[0] == '+' || body[0] == ' ') ? 1 : 0;
        return body.substr(0, sign) + std::string(fill, '0') + body.substr(sign);
    }
    return std::string(fill, ' ') + body;
}

std::string withSign(std::string digits, bool negative, const PercentSpec &spec) {
    if (negative) {
        return "-" + digits;
    }
    if (spec.plus) {
        return "+" + digits;
    }
    if (spec.space) {
        return " " + digits;
    }
    return digits;
}

std::string formatOne(const Value &arg, const PercentSpec &spec) {
    switch (spec.type) {
    case 's':
    case 'r':
    case 'a': {
        std::string body = spec.type == 's' ? toStr(arg) : toRepr(arg);
        if (spec.precision >= 0) {
            body.resize(
                text::byteOffsetOfCodePoint(body, static_cast<std::size_t>(spec.precision)));
        }
        return padded(std::move(body), spec, false);
    }
    case 'c': {
        std::string body;
        if (arg.isString() && text::codePointCount(arg.asString()) == 1) {
            body = std::string(arg.asString());
        } else if (arg.isInt() && arg.asInt() >= 0 && arg.asInt() <= 0x10FFFF) {
            text::appendUtf8(body, static_cast<char32_t>(arg.asInt()));
        } else {
            failFormat("%c requires int or char");
        }
        return padded(std::move(body), spec, false);
    }
    case 'd':
    case 'i':
    case 'u':
    case 'x':
    case 'X':
    case 'o': {
        if (!arg.isNumber()) {
            failFormat(std::string("%") + spec.type + " format: a real number is required, not " +
                       pythonTypeName(arg));
        }
        std::int64_t i = 0;
        if (arg.isFloat()) {
            const double d = arg.asDouble();
            if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) {
                failFormat("cannot convert float to integer");
            }
            i = static_cast<std::int64_t>(d);
        } else {
            i = arg.asInt();
        }
        const int base = spec.type == 'o' ? 8 : (spec.type == 'x' || spec.type == 'X' ? 16 : 10);
        const bool negative = i < 0;
        const std::uint64_t magnitude = negative ? std::uint64_t{0} - static_cast<std::uint64_t>(i)
                                                 : static_cast<std::uint64_t>(i);
        char buffer[72];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, magnitude, base);
        std::string digits(buffer, result.ptr);
        if (spec.type == 'X') {
            for (char &c : digits) {
                c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            }
        }
        if (spec.precision > 0 && digits.size() < static_cast<std::size_t>(spec.precision)) {
            digits.insert(0, static_cast<std::size_t>(spec.precision) - digits.size(), '0');
        }
        if (spec.alternate && base != 10) {
            digits.insert(0, base == 8 ? "0o" : (spec.type == 'X' ? "0X" : "0x"));
        }
        return padded(withSign(std::move(digits), negative, spec), spec, true);
    }
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G': {
        if (!arg.isNumber()) {
            failFormat(std::string("must be real number, not ") + pythonTypeName(arg));
        }
        const double d = arg.asDouble();
        std::string body =
            formatDouble(std::fabs(d), spec.type, spec.precision < 0 ? 6 : spec.precision);
        return padded(withSign(std::move(body), std::signbit(d) && !std::isnan(d), spec), spec,
                      true);
    }
    default:
        failFormat(std::string("unsupported format character '") + spec.type + "'");
    }
}

} // namespace

std::string percentFormat(std::string_view format, const Value &args) {
    // A tuple gives the arguments; anything else is the single argument. Python skips the
    // "not all arguments converted" check for arguments with __getitem__ (dicts and lists).
    ValueList positional;
    const bool tuple =
        args.isList() && (args.flavor() == ListFlavor::Tuple || args.flavor() == ListFlavor::Group);
    const bool mapping = args.isDict();
    const bool subscriptable = mapping || args.isUndefined() ||
                               (args.isList() && (args.flavor() == ListFlavor::List ||
                                                  args.flavor() == ListFlavor::Range));
    if (tuple) {
        for (std::size_t i = 0; i < args.listSize(); ++i) {
            positional.push_back(args.listAt(i));
        }
    } else {
        positional.push_back(args);
    }
    std::size_t next = 0;
    const auto nextArg = [&]() -> const Value & {
        if (next >= positional.size()) {
            failFormat("not enough arguments for format string");
        }
        return positional[next++];
    };
    std::string out;
    for (std::size_t pos = 0; pos < format.size();) {
        const char c = format[pos++];
        if (c != '%') {
            out += c;
            continue;
        }
        if (pos >= format.size()) {
            failFormat("incomplete format");
        }
        Value keyed;
        bool has_key = false;
        if (format[pos] == '(') {
            const std::size_t close = format.find(')', pos);
            if (close == std::string_view::npos) {
                failFormat("incomplete format key");
            }
            if (!mapping) {
                failFormat("format requires a mapping");
            }
            if (!args.dictFind(format.substr(pos + 1, close - pos - 1), keyed)) {
                failFormat("KeyError: '" + std::string(format.substr(pos + 1, close - pos - 1)) +
                           "'");
            }
            has_key = true;
            pos = close + 1;
        }
        PercentSpec spec;
        for (; pos < format.size(); ++pos) {
            const char flag = format[pos];
            if (flag == '-') {
                spec.left = true;
            } else if (flag == '+') {
                spec.plus = true;
            } else if (flag == ' ') {
                spec.space = true;
            } else if (flag == '0') {
                spec.zero = true;
            } else if (flag == '#') {
                spec.alternate = true;
            } else {
                break;
            }
        }
        const auto readNumber = [&](int &target) {
            if (pos < format.size() && format[pos] == '*') {
                const Value &n = nextArg();
                if (!n.isInt()) {
                    failFormat("* wants int");
                }
                target = static_cast<int>(std::min<std::int64_t>(n.asInt(), 100000));
                ++pos;
                return;
            }
            int value = -1;
            while (pos < format.size() && format[pos] >= '0' && format[pos] <= '9') {
                value = std::min((value < 0 ? 0 : value) * 10 + (format[pos] - '0'), 100000);
                ++pos;
            }
            target = value;
        };
        readNumber(spec.width);
        if (spec.width < -1) {
            spec.left = true;
            spec.width = -spec.width;
        }
        if (pos < format.size() && format[pos] == '.') {
            ++pos;
            readNumber(spec.precision);
            if (spec.precision < 0) {
                spec.precision = 0;
            }
        }
        while (pos < format.size() &&
               (format[pos] == 'l' || format[pos] == 'h' || format[pos] == 'L')) {
            ++pos;
        }
        if (pos >= format.size()) {
            failFormat("incomplete format");
        }
        spec.type = format[pos++];
        if (spec.type == '%') {
            out += '%';
            continue;
        }
        out += formatOne(has_key ? keyed : nextArg(), spec);
    }
    if (!subscriptable && next < positional.size()) {
        failFormat("not all arguments converted during string formatting");
    }
    return out;
}

namespace {

// Drops Python's digit-group underscores ("1_000"); false when one is misplaced.
bool withoutUnderscores(std::string_view s, std::string &out) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '_') {
            const bool between = i > 0 && i + 1 < s.size() &&
                                 std::isalnum(static_cast<unsigned char>(s[i - 1])) &&
                                 std::isalnum(static_cast<unsigned char>(s[i + 1]));
            if (!between) {
                return false;
            }
            continue;
        }
        out += s[i];
    }
    return true;
}

} // namespace

bool parsePythonInt(std::string_view s, int base, std::int64_t &out) {
    s = text::strip(s, nullptr, text::StripSide::Both);
    bool negative = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        negative = s[0] == '-';
        s.remove_prefix(1);
    }
    if (s.size() >= 2 && s[0] == '0') {
        const char p = static_cast<char>(std::tolower(static_cast<unsigned char>(s[1])));
        const int prefixed = p == 'x' ? 16 : (p == 'o' ? 8 : (p == 'b' ? 2 : 0));
        if (prefixed != 0 && (base == 0 || base == prefixed)) {
            base = prefixed;
            s.remove_prefix(2);
            if (!s.empty() && s[0] == '_') {
                s.remove_prefix(1);
            }
        }
    }
    if (base == 0) {
        base = 10;
        if (s.size() > 1 && s[0] == '0' && s.find_first_not_of("0_") != std::string_view::npos) {
            return false; // "012" is not an int literal
        }
    }
    if (base < 2 || base > 36) {
        return false;
    }
    std::string digits;
    if (s.empty() || !withoutUnderscores(s, digits) || digits.empty()) {
        return false;
    }
    std::uint64_t magnitude = 0;
    const auto result =
        std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
    if (result.ec != std::errc() || result.ptr != digits.data() + digits.size()) {
        return false;
    }
    const auto limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (magnitude > limit + (negative ? 1 : 0)) {
        return false;
    }
    out = negative ? static_cast<std::int64_t>(std::uint64_t{0} - magnitude)
                   : static_cast<std::int64_t>(magnitude);
    return true;
}

bool parsePythonFloat(std::string_view s, double &out) {
    s = text::strip(s, nullptr, text::StripSide::Both);
    std::string cleaned;
    if (s.empty() || !withoutUnderscores(s, cleaned)) {
        return false;
    }
    std::string_view body = cleaned;
    bool negative = false;
    if (body[0] == '+' || body[0] == '-') {
        negative = body[0] == '-';
        body.remove_prefix(1);
    }
    std::string lower;
    for (const char c : body) {
        lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (lower == "inf" || lower == "infinity" || lower == "nan") {
        out = lower == "nan" ? std::numeric_limits<double>::quiet_NaN()
                             : std::numeric_limits<double>::infinity();
        out = negative ? -out : out;
        return true;
    }
    if (body.empty() || !(std::isdigit(static_cast<unsigned char>(body[0])) || body[0] == '.')) {
        return false;
    }
    double value = 0;
    const auto result = std::from_chars(body.data(), body.data() + body.size(), value);
    if (result.ptr != body.data() + body.size()) {
        return false;
    }
    if (result.ec == std::errc::result_out_of_range) {
        // Python gives inf for overflow and 0.0 for underflow.
        value = body.find_first_of("eE") != std::string_view::npos &&
                        body.find("e-") == std::string_view::npos &&
                        body.find("E-") == std::string_view::npos
                    ? std::numeric_limits<double>::infinity()
                    : 0.0;
    } else if (result.ec != std::errc()) {
        return false;
    }
    out = negative ? -value : value;
    return true;
}

} // namespace headroom::chat::jinja
