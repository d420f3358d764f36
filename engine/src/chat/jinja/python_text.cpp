#include "chat/jinja/python_text.h"

#include "chat/jinja/unicode_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace headroom::chat::jinja {

namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

void appendHex(std::string &out, std::uint32_t value, int digits) {
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
        out += kHexDigits[(value >> shift) & 0xF];
    }
}

void appendInt(std::string &out, std::int64_t i) {
    char buffer[24];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, i);
    out.append(buffer, result.ptr);
}

// The containers whose repr is being written, innermost last: Python prints a container met
// again inside itself as [...] or {...} (namespaces can make lists and dicts contain themselves).
thread_local std::vector<const void *> repr_in_progress;

class ReprEntry {
public:
    explicit ReprEntry(const void *identity) : identity_(identity) {
        reentered_ = identity != nullptr &&
                     std::find(repr_in_progress.begin(), repr_in_progress.end(), identity) !=
                         repr_in_progress.end();
        if (identity != nullptr && !reentered_) {
            repr_in_progress.push_back(identity);
        }
    }
    ~ReprEntry() {
        if (identity_ != nullptr && !reentered_) {
            repr_in_progress.pop_back();
        }
    }
    ReprEntry(const ReprEntry &) = delete;
    ReprEntry &operator=(const ReprEntry &) = delete;
    bool reentered() const { return reentered_; }

private:
    const void *identity_;
    bool reentered_ = false;
};

void appendSequenceRepr(std::string &out, const Value &v, char open, char close, int depth) {
    const ReprEntry entry(v.listData());
    if (entry.reentered()) {
        out += open == '[' ? "[...]" : "(...)";
        return;
    }
    out += open;
    const std::size_t n = v.listSize();
    for (std::size_t i = 0; i < n; ++i) {
        if (i > 0) {
            out += ", ";
        }
        appendRepr(out, v.listAt(i), depth + 1);
    }
    if (n == 1 && open == '(') {
        out += ',';
    }
    out += close;
}

} // namespace

void appendFloatRepr(std::string &out, double d) {
    if (std::isnan(d)) {
        out += "nan";
        return;
    }
    if (std::isinf(d)) {
        out += d < 0 ? "-inf" : "inf";
        return;
    }
    // The shortest digits that round-trip, laid out the way float.__repr__ lays them out.
    char buffer[64];
    const auto result =
        std::to_chars(buffer, buffer + sizeof buffer, d, std::chars_format::scientific);
    const std::string_view sci(buffer, static_cast<std::size_t>(result.ptr - buffer));
    std::size_t pos = 0;
    if (sci[0] == '-') {
        out += '-';
        pos = 1;
    }
    const std::size_t e = sci.find('e');
    std::string digits;
    for (std::size_t i = pos; i < e; ++i) {
        if (sci[i] != '.') {
            digits += sci[i];
        }
    }
    int exponent = 0;
    std::from_chars(sci.data() + e + (sci[e + 1] == '+' ? 2 : 1), sci.data() + sci.size(),
                    exponent);
    const int ndigits = static_cast<int>(digits.size());
    if (exponent < -4 || exponent >= 16) {
        out += digits[0];
        if (ndigits > 1) {
            out += '.';
            out.append(digits, 1, std::string::npos);
        }
        out += 'e';
        out += exponent < 0 ? '-' : '+';
        const int magnitude = std::abs(exponent);
        if (magnitude < 10) {
            out += '0';
        }
        appendInt(out, magnitude);
        return;
    }
    const int point = exponent + 1; // digits before the decimal point
    if (point <= 0) {
        out += "0.";
        out.append(static_cast<std::size_t>(-point), '0');
        out += digits;
    } else if (point >= ndigits) {
        out += digits;
        out.append(static_cast<std::size_t>(point - ndigits), '0');
        out += ".0";
    } else {
        out.append(digits, 0, static_cast<std::size_t>(point));
        out += '.';
        out.append(digits, static_cast<std::size_t>(point), std::string::npos);
    }
}

void appendStringRepr(std::string &out, std::string_view s) {
    const bool has_single = s.find('\'') != std::string_view::npos;
    const bool has_double = s.find('"') != std::string_view::npos;
    const char quote = has_single && !has_double ? '"' : '\'';
    out += quote;
    for (std::size_t pos = 0; pos < s.size();) {
        const char32_t cp = text::decodeAt(s, pos);
        if (cp == static_cast<char32_t>(quote) || cp == '\\') {
            out += '\\';
            out += static_cast<char>(cp);
        } else if (cp == '\t') {
            out += "\\t";
        } else if (cp == '\n') {
            out += "\\n";
        } else if (cp == '\r') {
            out += "\\r";
        } else if (cp < 0x20 || cp == 0x7F) {
            out += "\\x";
            appendHex(out, cp, 2);
        } else if (cp < 0x7F || text::isPrintable(cp)) {
            text::appendUtf8(out, cp);
        } else if (cp <= 0xFF) {
            out += "\\x";
            appendHex(out, cp, 2);
        } else if (cp <= 0xFFFF) {
            out += "\\u";
            appendHex(out, cp, 4);
        } else {
            out += "\\U";
            appendHex(out, cp, 8);
        }
    }
    out += quote;
}

void appendRepr(std::string &out, const Value &v, int depth) {
    if (depth > kMaxValueDepth) {
        throw TemplateError("maximum recursion depth exceeded while getting the repr of an object",
                            0);
    }
    switch (v.kind()) {
    case ValueKind::Undefined:
        out += "Undefined";
        return;
    case ValueKind::String:
        appendStringRepr(out, v.asString());
        return;
    case ValueKind::List:
        switch (v.flavor()) {
        case ListFlavor::List:
            appendSequenceRepr(out, v, '[', ']', depth);
            return;
        case ListFlavor::Tuple:
        case ListFlavor::Group:
            appendSequenceRepr(out, v, '(', ')', depth);
            return;
        case ListFlavor::Range: {
            const ListData *data = v.listData();
            out += "range(";
            appendInt(out, data->range_start);
            out += ", ";
            appendInt(out, data->range_stop);
            if (data->range_step != 1) {
                out += ", ";
                appendInt(out, data->range_step);
            }
            out += ')';
            return;
        }
        case ListFlavor::DictItems:
        case ListFlavor::DictKeys:
        case ListFlavor::DictValues:
            out += pythonTypeName(v);
            out += '(';
            appendSequenceRepr(out, v, '[', ']', depth);
            out += ')';
            return;
        }
        return;
    case ValueKind::Dict: {
        const ReprEntry entry(v.dictData());
        if (entry.reentered()) {
            out += "{...}";
            return;
        }
        out += '{';
        const std::size_t n = v.dictSize();
        for (std::size_t i = 0; i < n; ++i) {
            if (i > 0) {
                out += ", ";
            }
            appendRepr(out, v.dictKeyAt(i), depth + 1);
            out += ": ";
            appendRepr(out, v.dictValueAt(i), depth + 1);
        }
        out += '}';
        return;
    }
    case ValueKind::Iterator:
        out += "<";
        out += v.iteratorState()->type_name;
        out += " object>";
        return;
    case ValueKind::Object: {
        const ReprEntry entry(v.asObject());
        if (entry.reentered()) {
            out += '<';
            out += v.asObject()->typeName();
            out += " {...}>";
            return;
        }
        v.asObject()->repr(out, depth + 1);
    }
        return;
    default:
        appendStr(out, v);
    }
}

void appendStr(std::string &out, const Value &v) {
    switch (v.kind()) {
    case ValueKind::Undefined:
        return;
    case ValueKind::None:
        out += "None";
        return;
    case ValueKind::Bool:
        out += v.asBool() ? "True" : "False";
        return;
    case ValueKind::Int:
        appendInt(out, v.asInt());
        return;
    case ValueKind::Float:
        appendFloatRepr(out, v.asDouble());
        return;
    case ValueKind::String:
        out += v.asString();
        return;
    default:
        appendRepr(out, v);
    }
}

std::string toStr(const Value &v) {
    if (v.isString()) {
        return std::string(v.asString());
    }
    std::string out;
    appendStr(out, v);
    return out;
}

std::string toRepr(const Value &v) {
    std::string out;
    appendRepr(out, v);
    return out;
}

namespace {

void appendJsonString(std::string &out, std::string_view s, bool ensure_ascii) {
    out += '"';
    for (std::size_t pos = 0; pos < s.size();) {
        const std::size_t start = pos;
        const char32_t cp = text::decodeAt(s, pos);
        switch (cp) {
        case '"':
            out += "\\\"";
            continue;
        case '\\':
            out += "\\\\";
            continue;
        case '\n':
            out += "\\n";
            continue;
        case '\r':
            out += "\\r";
            continue;
        case '\t':
            out += "\\t";
            continue;
        case '\b':
            out += "\\b";
            continue;
        case '\f':
            out += "\\f";
            continue;
        default:
            break;
        }
        if (cp < 0x20 || (ensure_ascii && cp >= 0x7F)) {
            if (cp > 0xFFFF) {
                const char32_t v = cp - 0x10000;
                out += "\\u";
                appendHex(out, 0xD800 | (v >> 10), 4);
                out += "\\u";
                appendHex(out, 0xDC00 | (v & 0x3FF), 4);
            } else {
                out += "\\u";
                appendHex(out, cp, 4);
            }
        } else {
            out.append(s.substr(start, pos - start));
        }
    }
    out += '"';
}

[[noreturn]] void failNotSerializable(const Value &v) {
    throw TemplateError(
        std::string("Object of type ") + pythonTypeName(v) + " is not JSON serializable", 0);
}

void appendJsonFloat(std::string &out, double d) {
    if (std::isnan(d)) {
        out += "NaN";
    } else if (std::isinf(d)) {
        out += d < 0 ? "-Infinity" : "Infinity";
    } else {
        appendFloatRepr(out, d);
    }
}

void appendJsonNewline(std::string &out, const JsonDumpOptions &options, int level) {
    out += '\n';
    for (int i = 0; i < level; ++i) {
        out += options.indent;
    }
}

// A dict key as json.dumps writes it: str as is, numbers, booleans and None converted.
std::string jsonKey(const Value &key) {
    switch (key.kind()) {
    case ValueKind::String:
        return std::string(key.asString());
    case ValueKind::Bool:
        return key.asBool() ? "true" : "false";
    case ValueKind::None:
        return "null";
    case ValueKind::Int:
        return toStr(key);
    case ValueKind::Float: {
        std::string out;
        appendJsonFloat(out, key.asDouble());
        return out;
    }
    default:
        throw TemplateError(std::string("keys must be str, int, float, bool or None, not ") +
                                pythonTypeName(key),
                            0);
    }
}

} // namespace

void appendJson(std::string &out, const Value &v, const JsonDumpOptions &options, int depth) {
    if (depth > kMaxValueDepth) {
        throw TemplateError("maximum recursion depth exceeded while encoding a JSON object", 0);
    }
    switch (v.kind()) {
    case ValueKind::None:
        out += "null";
        return;
    case ValueKind::Bool:
        out += v.asBool() ? "true" : "false";
        return;
    case ValueKind::Int:
        appendInt(out, v.asInt());
        return;
    case ValueKind::Float:
        appendJsonFloat(out, v.asDouble());
        return;
    case ValueKind::String:
        appendJsonString(out, v.asString(), options.ensure_ascii);
        return;
    case ValueKind::List: {
        if (v.flavor() != ListFlavor::List && v.flavor() != ListFlavor::Tuple &&
            v.flavor() != ListFlavor::Group) {
            failNotSerializable(v);
        }
        const std::size_t n = v.listSize();
        if (n == 0) {
            out += "[]";
            return;
        }
        out += '[';
        for (std::size_t i = 0; i < n; ++i) {
            if (i > 0) {
                out += options.item_separator;
            }
            if (options.has_indent) {
                appendJsonNewline(out, options, depth + 1);
            }
            appendJson(out, v.listAt(i), options, depth + 1);
        }
        if (options.has_indent) {
            appendJsonNewline(out, options, depth);
        }
        out += ']';
        return;
    }
    case ValueKind::Dict: {
        const std::size_t n = v.dictSize();
        if (n == 0) {
            out += "{}";
            return;
        }
        std::vector<std::size_t> order(n);
        for (std::size_t i = 0; i < n; ++i) {
            order[i] = i;
        }
        if (options.sort_keys) {
            std::vector<Value> keys;
            keys.reserve(n);
            for (std::size_t i = 0; i < n; ++i) {
                keys.push_back(v.dictKeyAt(i));
            }
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                return compareValues(keys[a], keys[b]) < 0;
            });
        }
        out += '{';
        bool first = true;
        for (const std::size_t i : order) {
            if (!first) {
                out += options.item_separator;
            }
            first = false;
            if (options.has_indent) {
                appendJsonNewline(out, options, depth + 1);
            }
            appendJsonString(out, jsonKey(v.dictKeyAt(i)), options.ensure_ascii);
            out += options.key_separator;
            appendJson(out, v.dictValueAt(i), options, depth + 1);
        }
        if (options.has_indent) {
            appendJsonNewline(out, options, depth);
        }
        out += '}';
        return;
    }
    default:
        failNotSerializable(v);
    }
}

} // namespace headroom::chat::jinja
