// str.format with the sandbox's field lookup, and the format-spec mini-language it applies.

#include "chat/jinja/functions.h"
#include "chat/jinja/python_text.h"
#include "chat/jinja/renderer.h"
#include "chat/jinja/unicode_text.h"

#include <charconv>
#include <cmath>

namespace headroom::chat::jinja::detail {

namespace {

struct FormatSpec {
    std::string fill = " ";
    char align = '\0';
    char sign = '-';
    bool alternate = false;
    bool zero = false;
    int width = -1;
    char grouping = '\0';
    int precision = -1;
    char type = '\0';
};

FormatSpec parseFormatSpec(Renderer &renderer, std::string_view spec) {
    FormatSpec out;
    std::size_t pos = 0;
    const auto isAlign = [](char c) {
        return c == '<' || c == '>' || c == '^' || c == '=';
    };
    if (!spec.empty()) {
        std::size_t after_first = 0;
        text::decodeAt(spec, after_first);
        if (after_first < spec.size() && isAlign(spec[after_first])) {
            out.fill = std::string(spec.substr(0, after_first));
            out.align = spec[after_first];
            pos = after_first + 1;
        } else if (isAlign(spec[0])) {
            out.align = spec[0];
            pos = 1;
        }
    }
    if (pos < spec.size() && (spec[pos] == '+' || spec[pos] == '-' || spec[pos] == ' ')) {
        out.sign = spec[pos++];
    }
    if (pos < spec.size() && spec[pos] == '#') {
        out.alternate = true;
        ++pos;
    }
    if (pos < spec.size() && spec[pos] == '0') {
        out.zero = true;
        ++pos;
    }
    const auto number = [&]() {
        int value = -1;
        while (pos < spec.size() && spec[pos] >= '0' && spec[pos] <= '9') {
            value = std::min((value < 0 ? 0 : value) * 10 + (spec[pos++] - '0'), 100000);
        }
        return value;
    };
    out.width = number();
    if (pos < spec.size() && (spec[pos] == ',' || spec[pos] == '_')) {
        out.grouping = spec[pos++];
    }
    if (pos < spec.size() && spec[pos] == '.') {
        ++pos;
        out.precision = number();
        if (out.precision < 0) {
            renderer.fail("Format specifier missing precision");
        }
    }
    if (pos < spec.size()) {
        out.type = spec[pos++];
    }
    if (pos != spec.size()) {
        renderer.fail("Invalid format specifier");
    }
    return out;
}

std::string groupDigits(std::string digits, char separator) {
    const std::size_t point = digits.find_first_of(".eE");
    const std::size_t end = point == std::string::npos ? digits.size() : point;
    std::string grouped;
    for (std::size_t i = 0; i < end; ++i) {
        if (i > 0 && (end - i) % 3 == 0) {
            grouped += separator;
        }
        grouped += digits[i];
    }
    return grouped + digits.substr(end);
}

std::string applyAlignment(std::string body, const FormatSpec &spec, char default_align,
                           bool numeric) {
    const std::size_t length = text::codePointCount(body);
    if (spec.width < 0 || length >= static_cast<std::size_t>(spec.width)) {
        return body;
    }
    const std::size_t margin = static_cast<std::size_t>(spec.width) - length;
    char align = spec.align != '\0' ? spec.align : default_align;
    std::string fill = spec.fill;
    if (spec.zero && spec.align == '\0' && numeric) {
        align = '=';
        fill = "0";
    }
    const auto repeat = [&](std::size_t n) {
        std::string out;
        for (std::size_t i = 0; i < n; ++i) {
            out += fill;
        }
        return out;
    };
    switch (align) {
    case '<':
        return body + repeat(margin);
    case '^':
        return repeat(margin / 2) + body + repeat(margin - margin / 2);
    case '=': {
        const std::size_t sign =
            !body.empty() && (body[0] == '-' || body[0] == '+' || body[0] == ' ') ? 1 : 0;
        return body.substr(0, sign) + repeat(margin) + body.substr(sign);
    }
    default:
        return repeat(margin) + body;
    }
}

std::string formatValue(Renderer &renderer, const Value &value, std::string_view spec_text) {
    if (spec_text.empty()) {
        return toStr(value);
    }
    const FormatSpec spec = parseFormatSpec(renderer, spec_text);
    if (value.isString() || value.isUndefined()) {
        if (spec.type != '\0' && spec.type != 's') {
            renderer.fail(std::string("Unknown format code '") + spec.type +
                          "' for object of type 'str'");
        }
        std::string body = toStr(value);
        if (spec.precision >= 0) {
            body.resize(
                text::byteOffsetOfCodePoint(body, static_cast<std::size_t>(spec.precision)));
        }
        return applyAlignment(std::move(body), spec, '<', false);
    }
    if (!value.isNumber()) {
        renderer.fail(std::string("unsupported format string passed to ") + pythonTypeName(value) +
                      ".__format__");
    }
    const bool integer_type = spec.type == '\0' || spec.type == 'd' || spec.type == 'b' ||
                              spec.type == 'o' || spec.type == 'x' || spec.type == 'X' ||
                              spec.type == 'n';
    std::string body;
    bool negative = false;
    if (!value.isFloat() && integer_type) {
        const std::int64_t i = value.asInt();
        negative = i < 0;
        const std::uint64_t magnitude = negative ? std::uint64_t{0} - static_cast<std::uint64_t>(i)
                                                 : static_cast<std::uint64_t>(i);
        const int base = spec.type == 'b'                         ? 2
                         : spec.type == 'o'                       ? 8
                         : (spec.type == 'x' || spec.type == 'X') ? 16
                                                                  : 10;
        char buffer[72];
        body.assign(buffer, std::to_chars(buffer, buffer + sizeof buffer, magnitude, base).ptr);
        if (spec.type == 'X') {
            for (char &c : body) {
                c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            }
        }
        if (spec.grouping != '\0') {
            body = groupDigits(body, spec.grouping);
        }
        if (spec.alternate && base != 10) {
            body.insert(0, base == 2 ? "0b" : base == 8 ? "0o" : (spec.type == 'X' ? "0X" : "0x"));
        }
    } else {
        const double d = value.asDouble();
        negative = std::signbit(d) && !std::isnan(d);
        const double magnitude = std::fabs(d);
        const int precision = spec.precision < 0 ? 6 : spec.precision;
        if (spec.type == '\0' && spec.precision < 0) {
            appendFloatRepr(body, magnitude);
        } else if (spec.type == '%') {
            body = percentFormat("%." + std::to_string(precision) + "f",
                                 Value::number(magnitude * 100)) +
                   "%";
        } else {
            const char type = spec.type == '\0' || spec.type == 'n' ? 'g' : spec.type;
            if (type != 'e' && type != 'E' && type != 'f' && type != 'F' && type != 'g' &&
                type != 'G') {
                renderer.fail(std::string("Unknown format code '") + spec.type +
                              "' for object of type 'float'");
            }
            body = percentFormat(std::string("%.") + std::to_string(precision) + type,
                                 Value::number(magnitude));
            if (spec.type == '\0' && body.find_first_of(".eEn") == std::string::npos) {
                body += ".0";
            }
        }
        if (spec.grouping != '\0') {
            body = groupDigits(body, spec.grouping);
        }
    }
    if (negative) {
        body.insert(0, "-");
    } else if (spec.sign == '+' || spec.sign == ' ') {
        body.insert(0, 1, spec.sign);
    }
    return applyAlignment(std::move(body), spec, '>', true);
}

} // namespace

std::string pythonStrFormat(Renderer &renderer, std::string_view format, const CallArgs &args) {
    std::string out;
    std::size_t next_auto = 0;
    bool used_auto = false, used_manual = false;
    for (std::size_t pos = 0; pos < format.size();) {
        const char c = format[pos];
        if (c == '}') {
            if (pos + 1 < format.size() && format[pos + 1] == '}') {
                out += '}';
                pos += 2;
                continue;
            }
            renderer.fail("Single '}' encountered in format string");
        }
        if (c != '{') {
            out += c;
            ++pos;
            continue;
        }
        if (pos + 1 < format.size() && format[pos + 1] == '{') {
            out += '{';
            pos += 2;
            continue;
        }
        const std::size_t close = format.find('}', pos);
        if (close == std::string_view::npos) {
            renderer.fail("Single '{' encountered in format string");
        }
        std::string_view field = format.substr(pos + 1, close - pos - 1);
        pos = close + 1;
        if (field.find('{') != std::string_view::npos) {
            renderer.fail("nested replacement fields are not supported");
        }
        std::string_view spec, conversion;
        if (const std::size_t colon = field.find(':'); colon != std::string_view::npos) {
            spec = field.substr(colon + 1);
            field = field.substr(0, colon);
        }
        if (const std::size_t bang = field.find('!'); bang != std::string_view::npos) {
            conversion = field.substr(bang + 1);
            field = field.substr(0, bang);
        }
        const std::size_t name_end = field.find_first_of(".[");
        const std::string_view first = field.substr(0, name_end);
        Value value;
        if (first.empty() || std::isdigit(static_cast<unsigned char>(first[0]))) {
            std::size_t index = next_auto;
            if (first.empty()) {
                used_auto = true;
                ++next_auto;
            } else {
                used_manual = true;
                index = 0;
                std::from_chars(first.data(), first.data() + first.size(), index);
            }
            if (used_auto && used_manual) {
                renderer.fail("cannot switch between automatic field numbering and manual field "
                              "specification");
            }
            if (index >= args.positional.size()) {
                renderer.fail("Replacement index " + std::to_string(index) +
                              " out of range for positional args tuple");
            }
            value = args.positional[index];
        } else {
            bool found = false;
            for (const auto &[key, kwarg] : args.keywords) {
                if (key == first) {
                    value = kwarg;
                    found = true;
                }
            }
            if (!found) {
                renderer.fail("KeyError: '" + std::string(first) + "'");
            }
        }
        for (std::size_t at = name_end; at != std::string_view::npos && at < field.size();) {
            if (field[at] == '.') {
                const std::size_t end = field.find_first_of(".[", at + 1);
                value = renderer.getAttribute(value, field.substr(at + 1, end - at - 1));
                at = end;
            } else {
                const std::size_t end = field.find(']', at);
                if (end == std::string_view::npos) {
                    renderer.fail("Missing ']' in format string");
                }
                const std::string_view key = field.substr(at + 1, end - at - 1);
                std::int64_t number = 0;
                const auto parsed = std::from_chars(key.data(), key.data() + key.size(), number);
                value =
                    renderer.getItem(value, parsed.ptr == key.data() + key.size() && !key.empty()
                                                ? Value::integer(number)
                                                : Value::string(std::string(key)));
                at = end + 1;
            }
        }
        if (conversion == "r" || conversion == "a") {
            value = Value::string(toRepr(value));
        } else if (conversion == "s") {
            value = Value::string(toStr(value));
        } else if (!conversion.empty()) {
            renderer.fail("Unknown conversion specifier " + std::string(conversion));
        }
        out += formatValue(renderer, value, spec);
        renderer.checkSize(out.size());
    }
    return out;
}

} // namespace headroom::chat::jinja::detail
