// jinja2's filters on strings and numbers, transformers' tojson, and the filter table.

#include "chat/jinja/filters.h"
#include "chat/jinja/functions.h"
#include "chat/jinja/python_text.h"
#include "chat/jinja/unicode_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace headroom::chat::jinja::detail {

Value asText(const Value &value) {
    return value.isString() ? value : Value::string(toStr(value));
}

namespace {

Value textResult(Renderer &renderer, std::string text) {
    renderer.checkSize(text.size());
    renderer.stepBytes(text.size());
    return Value::string(std::move(text));
}

Value filterUpper(Renderer &r, const Value &v, CallArgs &args) {
    bindArguments("upper", args, {}, nullptr);
    return textResult(r, text::toUpper(asText(v).asString()));
}

Value filterLower(Renderer &r, const Value &v, CallArgs &args) {
    bindArguments("lower", args, {}, nullptr);
    return textResult(r, text::toLower(asText(v).asString()));
}

Value filterCapitalize(Renderer &r, const Value &v, CallArgs &args) {
    bindArguments("capitalize", args, {}, nullptr);
    return textResult(r, text::capitalize(asText(v).asString()));
}

// Words start after runs of "-", whitespace and opening brackets; each is capitalized.
Value filterTitle(Renderer &r, const Value &v, CallArgs &args) {
    bindArguments("title", args, {}, nullptr);
    const Value source = asText(v);
    const std::string_view s = source.asString();
    const auto separates = [](char32_t c) {
        return c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || text::isPythonSpace(c);
    };
    std::string out;
    for (std::size_t pos = 0; pos < s.size();) {
        std::size_t next = pos;
        const char32_t first = text::decodeAt(s, next);
        if (separates(first)) {
            out.append(s.substr(pos, next - pos));
            pos = next;
            continue;
        }
        std::size_t end = next;
        while (end < s.size()) {
            std::size_t probe = end;
            if (separates(text::decodeAt(s, probe))) {
                break;
            }
            end = probe;
        }
        out += text::toUpper(s.substr(pos, next - pos));
        out += text::toLower(s.substr(next, end - next));
        pos = end;
    }
    return textResult(r, std::move(out));
}

Value filterTrim(Renderer &r, const Value &v, CallArgs &args) {
    Value chars;
    bindArguments("trim", args, {"chars"}, &chars);
    const Value source = asText(v);
    if (chars.isUndefined() || chars.isNone()) {
        return textResult(
            r, std::string(text::strip(source.asString(), nullptr, text::StripSide::Both)));
    }
    if (!chars.isString()) {
        r.fail("strip arg must be None or str");
    }
    const std::string_view set = chars.asString();
    return textResult(r, std::string(text::strip(source.asString(), &set, text::StripSide::Both)));
}

Value filterString(Renderer &r, const Value &v, CallArgs &args) {
    bindArguments("string", args, {}, nullptr);
    return v.isString() ? v : textResult(r, toStr(v));
}

Value filterSafe(Renderer &r, const Value &v, CallArgs &args) {
    bindArguments("safe", args, {}, nullptr);
    return v.isString() ? v : textResult(r, toStr(v));
}

Value filterEscape(Renderer &r, const Value &v, CallArgs &args) {
    bindArguments("escape", args, {}, nullptr);
    const Value source = asText(v);
    std::string out;
    for (const char c : source.asString()) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&#34;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            out += c;
        }
    }
    return textResult(r, std::move(out));
}

Value filterReplace(Renderer &r, const Value &v, CallArgs &args) {
    Value a[3];
    bindArguments("replace", args, {"old", "new", "count"}, a);
    if (a[0].isUndefined() || a[1].isUndefined()) {
        r.fail("replace() missing required argument");
    }
    std::int64_t count = -1;
    if (!a[2].isUndefined() && !a[2].isNone()) {
        if (!a[2].isInt() && !a[2].isBool()) {
            r.fail("'" + std::string(pythonTypeName(a[2])) +
                   "' object cannot be interpreted as an integer");
        }
        count = a[2].asInt();
    }
    const Value source = asText(v), old_text = asText(a[0]), new_text = asText(a[1]);
    return textResult(
        r, pythonReplace(r, source.asString(), old_text.asString(), new_text.asString(), count));
}

Value filterCenter(Renderer &r, const Value &v, CallArgs &args) {
    Value width;
    bindArguments("center", args, {"width"}, &width);
    CallArgs call;
    call.positional.push_back(width.isUndefined() ? Value::integer(80) : width);
    return callMethod(r, asText(v), "center", call);
}

Value filterIndent(Renderer &r, const Value &v, CallArgs &args) {
    Value a[3];
    bindArguments("indent", args, {"width", "first", "blank"}, a);
    std::string indentation;
    if (a[0].isString()) {
        indentation = std::string(a[0].asString());
    } else {
        const std::int64_t width = a[0].isUndefined() ? 4 : a[0].asInt();
        if (!a[0].isUndefined() && !a[0].isInt() && !a[0].isBool()) {
            r.fail("can't multiply sequence by non-int of type '" +
                   std::string(pythonTypeName(a[0])) + "'");
        }
        r.checkSize(static_cast<std::size_t>(std::max<std::int64_t>(width, 0)));
        indentation.assign(static_cast<std::size_t>(std::max<std::int64_t>(width, 0)), ' ');
    }
    if (!v.isString()) { // jinja2 does `s += "\n"`: only a str can
        r.fail(v.isUndefined() ? v.undefinedMessage()
                               : std::string("unsupported operand type(s) for +=: '") +
                                     pythonTypeName(v) + "' and 'str'");
    }
    // s += "\n" then splitlines(): a trailing newline does not make an extra line.
    std::string s(v.asString());
    s += '\n';
    std::vector<std::string_view> lines;
    std::size_t begin = 0;
    for (std::size_t pos = 0; pos < s.size();) {
        const std::size_t at = pos;
        const char32_t cp = text::decodeAt(s, pos);
        if (!text::isLineBreak(cp)) {
            continue;
        }
        if (cp == '\r' && pos < s.size() && s[pos] == '\n') {
            ++pos;
        }
        lines.push_back(std::string_view(s).substr(begin, at - begin));
        begin = pos;
    }
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (i > 0) {
            out += '\n';
            if (a[2].truthy() || !lines[i].empty()) {
                out += indentation;
            }
        }
        out += lines[i];
        r.checkSize(out.size());
    }
    if (a[1].truthy()) {
        out.insert(0, indentation);
    }
    return textResult(r, std::move(out));
}

Value filterTruncate(Renderer &r, const Value &v, CallArgs &args) {
    Value a[4];
    bindArguments("truncate", args, {"length", "killwords", "end", "leeway"}, a);
    const std::int64_t length = a[0].isUndefined() ? 255 : a[0].asInt();
    const Value end = a[2].isUndefined() ? Value::string("...") : asText(a[2]);
    const std::int64_t leeway = a[3].isUndefined() || a[3].isNone() ? 5 : a[3].asInt();
    const auto end_length = static_cast<std::int64_t>(text::codePointCount(end.asString()));
    if (length < end_length) {
        r.fail("expected length >= " + std::to_string(end_length) + ", got " +
               std::to_string(length));
    }
    if (leeway < 0) {
        r.fail("expected leeway >= 0, got " + std::to_string(leeway));
    }
    if (v.isUndefined()) {
        return v; // len(Undefined) is 0
    }
    if (!v.isString()) {
        // len(s) of a list or dict works, and a short one comes back unchanged.
        const bool sized = v.isList() || v.isDict();
        const auto size =
            static_cast<std::int64_t>(v.isList() ? v.listSize() : (v.isDict() ? v.dictSize() : 0));
        if (sized && size <= length + leeway) {
            return v;
        }
        r.fail(sized
                   ? std::string("truncate of a long '") + pythonTypeName(v) + "' is not supported"
                   : std::string("object of type '") + pythonTypeName(v) + "' has no len()");
    }
    const Value source = v;
    const std::string_view s = source.asString();
    if (static_cast<std::int64_t>(text::codePointCount(s)) <= length + leeway) {
        return source;
    }
    std::string kept(
        s.substr(0, text::byteOffsetOfCodePoint(s, static_cast<std::size_t>(length - end_length))));
    if (!a[1].truthy()) {
        const std::size_t space = kept.rfind(' ');
        if (space != std::string::npos) {
            kept.resize(space);
        }
    }
    return textResult(r, kept + std::string(end.asString()));
}

Value filterWordcount(Renderer &r, const Value &v, CallArgs &args) {
    bindArguments("wordcount", args, {}, nullptr);
    const Value source = asText(v);
    const std::string_view s = source.asString();
    r.stepBytes(s.size());
    std::int64_t words = 0;
    bool in_word = false;
    for (std::size_t pos = 0; pos < s.size();) {
        const bool word = text::isWordChar(text::decodeAt(s, pos));
        words += word && !in_word ? 1 : 0;
        in_word = word;
    }
    return Value::integer(words);
}

Value filterFormat(Renderer &r, const Value &v, CallArgs &args) {
    if (!args.positional.empty() && !args.keywords.empty()) {
        r.fail("can't handle positional and keyword arguments at the same time");
    }
    Value values;
    if (!args.keywords.empty()) {
        auto data = std::make_shared<DictData>();
        for (const auto &[key, value] : args.keywords) {
            data->set(Value::string(key), value);
        }
        values = r.makeDict(std::move(data));
    } else {
        values = r.makeList(args.positional, ListFlavor::Tuple);
    }
    return textResult(r, percentFormat(asText(v).asString(), values));
}

Value filterInt(Renderer &r, const Value &v, CallArgs &args) {
    Value a[2];
    bindArguments("int", args, {"default", "base"}, a);
    const Value fallback = a[0].isUndefined() ? Value::integer(0) : a[0];
    const auto fromDouble = [&](double d) {
        if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) {
            return fallback;
        }
        return Value::integer(static_cast<std::int64_t>(d));
    };
    if (v.isUndefined()) {
        r.fail(v.undefinedMessage()); // int(Undefined) raises UndefinedError, which int() does not
                                      // catch
    }
    if (v.isInt() || v.isBool()) {
        return Value::integer(v.asInt());
    }
    if (v.isFloat()) {
        return fromDouble(v.asDouble());
    }
    if (v.isString()) {
        std::int64_t parsed = 0;
        const int base = a[1].isUndefined() ? 10 : static_cast<int>(a[1].asInt());
        if (parsePythonInt(v.asString(), base, parsed)) {
            return Value::integer(parsed);
        }
        double d = 0;
        if (parsePythonFloat(v.asString(), d)) {
            return fromDouble(d);
        }
    }
    return fallback;
}

Value filterFloat(Renderer &r, const Value &v, CallArgs &args) {
    Value fallback;
    bindArguments("float", args, {"default"}, &fallback);
    if (v.isUndefined()) {
        r.fail(v.undefinedMessage());
    }
    if (v.isNumber()) {
        return Value::number(v.asDouble());
    }
    double d = 0;
    if (v.isString() && parsePythonFloat(v.asString(), d)) {
        return Value::number(d);
    }
    return fallback.isUndefined() ? Value::number(0.0) : fallback;
}

Value filterAbs(Renderer &r, const Value &v, CallArgs &args) {
    bindArguments("abs", args, {}, nullptr);
    if (v.isFloat()) {
        return Value::number(std::fabs(v.asDouble()));
    }
    if (v.isInt() || v.isBool()) {
        if (v.asInt() == std::numeric_limits<std::int64_t>::min()) {
            r.fail("integer overflow");
        }
        return Value::integer(v.asInt() < 0 ? -v.asInt() : v.asInt());
    }
    r.fail(std::string("bad operand type for abs(): '") + pythonTypeName(v) + "'");
}

// Python's round(x, n): correctly rounded through the shortest decimal string of x.
double roundHalfEven(double x, std::int64_t digits) {
    if (!std::isfinite(x) || digits > 300) {
        return x;
    }
    if (digits < -308) {
        return std::copysign(0.0, x);
    }
    if (digits >= 0) {
        char buffer[512];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, x,
                                          std::chars_format::fixed, static_cast<int>(digits));
        double rounded = x;
        if (result.ec == std::errc()) {
            std::from_chars(buffer, result.ptr, rounded);
        }
        return rounded;
    }
    const double scale = std::pow(10.0, static_cast<double>(-digits));
    const double y = x / scale;
    double z = std::nearbyint(y); // ties to even in the default rounding mode
    if (std::fabs(y - std::trunc(y)) == 0.5) {
        z = 2.0 * std::round(y / 2.0);
    }
    return z * scale;
}

Value filterRound(Renderer &r, const Value &v, CallArgs &args) {
    Value a[2];
    bindArguments("round", args, {"precision", "method"}, a);
    const std::int64_t precision = a[0].isUndefined() ? 0 : a[0].asInt();
    const std::string method = a[1].isUndefined() ? "common" : toStr(a[1]);
    if (method != "common" && method != "ceil" && method != "floor") {
        r.fail("method must be common, ceil or floor");
    }
    if (!v.isNumber()) {
        r.fail(std::string("type ") + pythonTypeName(v) + " doesn't define __round__ method");
    }
    if (method == "common") {
        if (!v.isFloat()) {
            return Value::integer(v.asInt()); // round(int, n) stays an int
        }
        return Value::number(roundHalfEven(v.asDouble(), precision));
    }
    const double scale = std::pow(10.0, static_cast<double>(precision));
    const double scaled = v.asDouble() * scale;
    return Value::number((method == "ceil" ? std::ceil(scaled) : std::floor(scaled)) / scale);
}

// transformers' tojson: json.dumps(x, ensure_ascii=False, indent=None, separators=None,
// sort_keys=False), positional arguments in that order.
Value filterToJson(Renderer &r, const Value &v, CallArgs &args) {
    Value a[4];
    bindArguments("tojson", args, {"ensure_ascii", "indent", "separators", "sort_keys"}, a);
    JsonDumpOptions options;
    options.ensure_ascii = a[0].truthy();
    options.sort_keys = a[3].truthy();
    if (!a[1].isUndefined() && !a[1].isNone()) {
        options.has_indent = true;
        if (a[1].isString()) {
            options.indent = std::string(a[1].asString());
        } else if (a[1].isInt() || a[1].isBool()) {
            const std::int64_t width = std::min<std::int64_t>(a[1].asInt(), 1 << 20);
            options.indent.assign(static_cast<std::size_t>(std::max<std::int64_t>(width, 0)), ' ');
        } else {
            r.fail(std::string("can't multiply sequence by non-int of type '") +
                   pythonTypeName(a[1]) + "'");
        }
        options.item_separator = ",";
    }
    if (!a[2].isUndefined() && !a[2].isNone()) {
        const ValueList separators = r.iterate(a[2]);
        if (separators.size() != 2) {
            r.fail("separators must be a pair of strings");
        }
        options.item_separator = toStr(separators[0]);
        options.key_separator = toStr(separators[1]);
    }
    std::string out;
    appendJson(out, v, options);
    return textResult(r, std::move(out));
}

} // namespace

void addTextFilters(std::vector<FilterEntry> &table) {
    table.insert(table.end(), {
                                  {"upper", filterUpper},
                                  {"lower", filterLower},
                                  {"capitalize", filterCapitalize},
                                  {"title", filterTitle},
                                  {"trim", filterTrim},
                                  {"string", filterString},
                                  {"safe", filterSafe},
                                  {"e", filterEscape},
                                  {"escape", filterEscape},
                                  {"forceescape", filterEscape},
                                  {"replace", filterReplace},
                                  {"center", filterCenter},
                                  {"indent", filterIndent},
                                  {"truncate", filterTruncate},
                                  {"wordcount", filterWordcount},
                                  {"format", filterFormat},
                                  {"int", filterInt},
                                  {"float", filterFloat},
                                  {"abs", filterAbs},
                                  {"round", filterRound},
                                  {"tojson", filterToJson},
                              });
}

namespace {

const std::vector<FilterEntry> &filterTable() {
    static const std::vector<FilterEntry> table = [] {
        std::vector<FilterEntry> entries;
        addTextFilters(entries);
        addSequenceFilters(entries);
        return entries;
    }();
    return table;
}

} // namespace

int findFilter(std::string_view name) {
    const auto &table = filterTable();
    for (std::size_t i = 0; i < table.size(); ++i) {
        if (table[i].name == name) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

Value runFilter(int index, Renderer &renderer, const Value &operand, CallArgs &args) {
    return filterTable()[static_cast<std::size_t>(index)].function(renderer, operand, args);
}

} // namespace headroom::chat::jinja::detail
