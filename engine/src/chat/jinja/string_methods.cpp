// The methods of Python's str that templates call (strip, split, startswith, replace, ...).

#include "chat/jinja/functions.h"
#include "chat/jinja/python_text.h"
#include "chat/jinja/renderer.h"
#include "chat/jinja/unicode_text.h"

#include <algorithm>

namespace headroom::chat::jinja::detail {

namespace {

// An argument that must be a str (or None where Python allows it).
std::string_view stringArgument(Renderer &renderer, const Value &v, const char *method) {
    if (!v.isString()) {
        renderer.fail(std::string(method) + "() argument must be str, not " + pythonTypeName(v));
    }
    return v.asString();
}

std::int64_t intArgument(Renderer &renderer, const Value &v, const char *method) {
    if (!v.isInt() && !v.isBool()) {
        renderer.fail(std::string("'") + pythonTypeName(v) +
                      "' object cannot be interpreted as an integer (" + method + ")");
    }
    return v.asInt();
}

// Byte range of s[start:end] with Python's code point indexes (None: the whole string).
std::pair<std::size_t, std::size_t> codePointRange(std::string_view s, const Value &start,
                                                   const Value &end) {
    const auto length = static_cast<std::int64_t>(text::codePointCount(s));
    const auto clamp = [&](const Value &v, std::int64_t fallback) {
        if (v.isUndefined() || v.isNone()) {
            return fallback;
        }
        std::int64_t i = v.asInt();
        if (i < 0) {
            i = std::max<std::int64_t>(i + length, 0);
        }
        return std::min(i, length);
    };
    const std::int64_t b = clamp(start, 0);
    const std::int64_t e = std::max(clamp(end, length), b);
    return {text::byteOffsetOfCodePoint(s, static_cast<std::size_t>(b)),
            text::byteOffsetOfCodePoint(s, static_cast<std::size_t>(e))};
}

Value splitString(Renderer &renderer, std::string_view s, const Value &sep, std::int64_t maxsplit,
                  bool from_right) {
    ValueList parts;
    if (sep.isUndefined() || sep.isNone()) {
        // Runs of whitespace separate; leading and trailing whitespace is dropped.
        std::vector<std::string_view> words;
        std::size_t pos = 0;
        std::vector<std::pair<std::size_t, std::size_t>> bounds;
        while (pos < s.size()) {
            std::size_t next = pos;
            if (text::isPythonSpace(text::decodeAt(s, next))) {
                pos = next;
                continue;
            }
            const std::size_t begin = pos;
            while (pos < s.size()) {
                next = pos;
                if (text::isPythonSpace(text::decodeAt(s, next))) {
                    break;
                }
                pos = next;
            }
            bounds.emplace_back(begin, pos);
        }
        const std::size_t limit =
            maxsplit < 0 ? bounds.size() : static_cast<std::size_t>(maxsplit) + 1;
        if (bounds.size() <= limit) {
            for (const auto &[b, e] : bounds) {
                parts.push_back(Value::string(std::string(s.substr(b, e - b))));
            }
        } else if (!from_right) {
            for (std::size_t i = 0; i + 1 < limit; ++i) {
                parts.push_back(Value::string(
                    std::string(s.substr(bounds[i].first, bounds[i].second - bounds[i].first))));
            }
            const std::string_view rest =
                text::strip(s.substr(bounds[limit - 1].first), nullptr, text::StripSide::Right);
            parts.push_back(Value::string(std::string(rest)));
        } else {
            const std::size_t first_kept = bounds.size() - (limit - 1);
            const std::string_view rest = text::strip(s.substr(0, bounds[first_kept - 1].second),
                                                      nullptr, text::StripSide::Left);
            parts.push_back(Value::string(std::string(rest)));
            for (std::size_t i = first_kept; i < bounds.size(); ++i) {
                parts.push_back(Value::string(
                    std::string(s.substr(bounds[i].first, bounds[i].second - bounds[i].first))));
            }
        }
        renderer.step(static_cast<std::int64_t>(parts.size()));
        return renderer.makeList(std::move(parts));
    }
    const std::string_view separator = stringArgument(renderer, sep, "split");
    if (separator.empty()) {
        renderer.fail("empty separator");
    }
    std::vector<std::string_view> pieces;
    std::int64_t splits = 0;
    if (!from_right) {
        std::size_t begin = 0;
        for (;;) {
            const std::size_t found = (maxsplit >= 0 && splits >= maxsplit)
                                          ? std::string_view::npos
                                          : s.find(separator, begin);
            if (found == std::string_view::npos) {
                pieces.push_back(s.substr(begin));
                break;
            }
            pieces.push_back(s.substr(begin, found - begin));
            begin = found + separator.size();
            ++splits;
        }
    } else {
        std::size_t end = s.size();
        for (;;) {
            const std::size_t found =
                (maxsplit >= 0 && splits >= maxsplit) || end < separator.size()
                    ? std::string_view::npos
                    : s.rfind(separator, end - separator.size());
            if (found == std::string_view::npos) {
                pieces.push_back(s.substr(0, end));
                break;
            }
            pieces.push_back(s.substr(found + separator.size(), end - found - separator.size()));
            end = found;
            ++splits;
        }
        std::reverse(pieces.begin(), pieces.end());
    }
    renderer.step(static_cast<std::int64_t>(pieces.size()));
    for (const std::string_view piece : pieces) {
        parts.push_back(Value::string(std::string(piece)));
    }
    return renderer.makeList(std::move(parts));
}

Value splitLines(Renderer &renderer, std::string_view s, bool keep_ends) {
    ValueList lines;
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
        lines.push_back(
            Value::string(std::string(s.substr(begin, (keep_ends ? pos : at) - begin))));
        begin = pos;
    }
    if (begin < s.size()) {
        lines.push_back(Value::string(std::string(s.substr(begin))));
    }
    renderer.step(static_cast<std::int64_t>(lines.size()));
    return renderer.makeList(std::move(lines));
}

Value affixTest(Renderer &renderer, std::string_view s, const Value *args, bool prefix) {
    const char *name = prefix ? "startswith" : "endswith";
    const auto [b, e] = codePointRange(s, args[1], args[2]);
    const std::string_view window = s.substr(b, e - b);
    const auto matches = [&](const Value &candidate) {
        const std::string_view affix = stringArgument(renderer, candidate, name);
        return window.size() >= affix.size() &&
               (prefix ? window.substr(0, affix.size()) == affix
                       : window.substr(window.size() - affix.size()) == affix);
    };
    if (args[0].isList() && args[0].flavor() == ListFlavor::Tuple) {
        for (std::size_t i = 0; i < args[0].listSize(); ++i) {
            if (matches(args[0].listAt(i))) {
                return Value::boolean(true);
            }
        }
        return Value::boolean(false);
    }
    if (!args[0].isString()) {
        renderer.fail(std::string(name) + " first arg must be str or a tuple of str, not " +
                      pythonTypeName(args[0]));
    }
    return Value::boolean(matches(args[0]));
}

template <class Predicate> Value allCodePoints(std::string_view s, Predicate predicate) {
    if (s.empty()) {
        return Value::boolean(false);
    }
    for (std::size_t pos = 0; pos < s.size();) {
        if (!predicate(text::decodeAt(s, pos))) {
            return Value::boolean(false);
        }
    }
    return Value::boolean(true);
}

Value padString(Renderer &renderer, std::string_view s, const Value *args, char align) {
    const std::int64_t width = intArgument(renderer, args[0], "pad");
    std::string fill = " ";
    if (!args[1].isUndefined()) {
        fill = std::string(stringArgument(renderer, args[1], "pad"));
        if (text::codePointCount(fill) != 1) {
            renderer.fail("The fill character must be exactly one character long");
        }
    }
    const auto length = static_cast<std::int64_t>(text::codePointCount(s));
    if (width <= length) {
        return Value::string(std::string(s));
    }
    renderer.checkSize(static_cast<std::size_t>(width) * fill.size());
    const std::int64_t margin = width - length;
    std::int64_t left = 0;
    if (align == '^') {
        left = margin / 2 + (margin & width & 1);
    } else if (align == '>') {
        left = margin;
    }
    std::string out;
    for (std::int64_t i = 0; i < left; ++i) {
        out += fill;
    }
    out += s;
    for (std::int64_t i = left; i < margin; ++i) {
        out += fill;
    }
    renderer.stepBytes(out.size());
    return Value::string(std::move(out));
}

} // namespace

Value callStringMethod(Renderer &renderer, const Value &object, std::string_view name,
                       CallArgs &call) {
    const std::string_view s = object.asString();
    Value a[3];
    const auto bind = [&](std::initializer_list<std::string_view> names) {
        bindArguments(std::string(name).c_str(), call, names, a);
    };
    const auto result = [&](std::string text) {
        renderer.stepBytes(text.size());
        return Value::string(std::move(text));
    };
    if (name == "strip" || name == "lstrip" || name == "rstrip") {
        bind({"chars"});
        const text::StripSide side = name == "strip"    ? text::StripSide::Both
                                     : name == "lstrip" ? text::StripSide::Left
                                                        : text::StripSide::Right;
        if (a[0].isUndefined() || a[0].isNone()) {
            return result(std::string(text::strip(s, nullptr, side)));
        }
        const std::string_view chars = stringArgument(renderer, a[0], "strip");
        return result(std::string(text::strip(s, &chars, side)));
    }
    if (name == "split" || name == "rsplit") {
        bind({"sep", "maxsplit"});
        const std::int64_t maxsplit =
            a[1].isUndefined() ? -1 : intArgument(renderer, a[1], "split");
        return splitString(renderer, s, a[0], maxsplit, name == "rsplit");
    }
    if (name == "splitlines") {
        bind({"keepends"});
        return splitLines(renderer, s, a[0].truthy());
    }
    if (name == "startswith" || name == "endswith") {
        bind({"prefix", "start", "end"});
        return affixTest(renderer, s, a, name == "startswith");
    }
    if (name == "upper" || name == "lower" || name == "casefold" || name == "title" ||
        name == "capitalize" || name == "swapcase") {
        bind({});
        if (name == "upper") {
            return result(text::toUpper(s));
        }
        if (name == "lower" || name == "casefold") {
            return result(text::toLower(s));
        }
        if (name == "title") {
            return result(text::pythonTitle(s));
        }
        return result(name == "capitalize" ? text::capitalize(s) : text::swapCase(s));
    }
    if (name == "replace") {
        bind({"old", "new", "count"});
        const std::string_view old_text = stringArgument(renderer, a[0], "replace");
        const std::string_view new_text = stringArgument(renderer, a[1], "replace");
        std::int64_t count = a[2].isUndefined() ? -1 : intArgument(renderer, a[2], "replace");
        return result(pythonReplace(renderer, s, old_text, new_text, count));
    }
    if (name == "find" || name == "rfind" || name == "index" || name == "rindex" ||
        name == "count") {
        bind({"sub", "start", "end"});
        const std::string_view sub = stringArgument(renderer, a[0], std::string(name).c_str());
        const auto [b, e] = codePointRange(s, a[1], a[2]);
        const std::string_view window = s.substr(b, e - b);
        renderer.stepBytes(window.size());
        if (name == "count") {
            if (sub.empty()) {
                return Value::integer(static_cast<std::int64_t>(text::codePointCount(window)) + 1);
            }
            std::int64_t n = 0;
            for (std::size_t at = window.find(sub); at != std::string_view::npos;
                 at = window.find(sub, at + sub.size())) {
                ++n;
            }
            return Value::integer(n);
        }
        const bool reverse = name[0] == 'r';
        const std::size_t at = reverse ? window.rfind(sub) : window.find(sub);
        if (at == std::string_view::npos) {
            if (name == "index" || name == "rindex") {
                renderer.fail("substring not found");
            }
            return Value::integer(-1);
        }
        return Value::integer(static_cast<std::int64_t>(text::codePointCount(s.substr(0, b + at))));
    }
    if (name == "join") {
        bind({"iterable"});
        std::string out;
        bool first = true;
        std::size_t index = 0;
        for (const Value &item : renderer.iterate(a[0])) {
            if (!item.isString()) {
                renderer.fail("sequence item " + std::to_string(index) +
                              ": expected str instance, " + pythonTypeName(item) + " found");
            }
            if (!first) {
                out += s;
            }
            first = false;
            out += item.asString();
            renderer.checkSize(out.size());
            ++index;
        }
        return result(std::move(out));
    }
    if (name == "format") {
        return result(pythonStrFormat(renderer, s, call));
    }
    if (name.substr(0, 2) == "is") {
        bind({});
        if (name == "isdigit") {
            return allCodePoints(s, text::isDigit);
        }
        if (name == "isalpha") {
            return allCodePoints(s, text::isAlpha);
        }
        if (name == "isalnum") {
            return allCodePoints(s,
                                 [](char32_t c) { return text::isAlpha(c) || text::isNumeric(c); });
        }
        if (name == "isspace") {
            return allCodePoints(s, text::isPythonSpace);
        }
        if (name == "isnumeric") {
            return allCodePoints(s, text::isNumeric);
        }
        if (name == "isdecimal") {
            return allCodePoints(s, text::isDecimal);
        }
        if (name == "isidentifier") {
            bool first = true;
            return allCodePoints(s, [&](char32_t c) {
                const bool ok = c == '_' || text::isAlpha(c) || (!first && text::isNumeric(c));
                first = false;
                return ok;
            });
        }
        // isupper / islower / istitle look at cased characters only.
        bool any_cased = false, ok = true, previous_cased = false;
        for (std::size_t pos = 0; pos < s.size();) {
            const char32_t c = text::decodeAt(s, pos);
            const bool upper = text::isUpper(c), lower = text::isLower(c);
            if (name == "isupper") {
                ok = ok && !lower;
                any_cased = any_cased || upper;
            } else if (name == "islower") {
                ok = ok && !upper;
                any_cased = any_cased || lower;
            } else {
                if (upper) {
                    ok = ok && !previous_cased;
                    any_cased = true;
                } else if (lower) {
                    ok = ok && previous_cased;
                    any_cased = true;
                }
                previous_cased = upper || lower;
            }
        }
        return Value::boolean(ok && any_cased);
    }
    if (name == "zfill") {
        bind({"width"});
        const std::int64_t width = intArgument(renderer, a[0], "zfill");
        const auto length = static_cast<std::int64_t>(text::codePointCount(s));
        if (width <= length) {
            return Value::string(std::string(s));
        }
        renderer.checkSize(static_cast<std::size_t>(width));
        std::string out(s);
        const std::size_t sign = !out.empty() && (out[0] == '+' || out[0] == '-') ? 1 : 0;
        out.insert(sign, static_cast<std::size_t>(width - length), '0');
        return result(std::move(out));
    }
    if (name == "center" || name == "ljust" || name == "rjust") {
        bind({"width", "fillchar"});
        return padString(renderer, s, a, name == "center" ? '^' : (name == "ljust" ? '<' : '>'));
    }
    if (name == "removeprefix" || name == "removesuffix") {
        bind({"affix"});
        const std::string_view affix = stringArgument(renderer, a[0], std::string(name).c_str());
        if (name == "removeprefix" && s.substr(0, affix.size()) == affix) {
            return result(std::string(s.substr(affix.size())));
        }
        if (name == "removesuffix" && !affix.empty() && s.size() >= affix.size() &&
            s.substr(s.size() - affix.size()) == affix) {
            return result(std::string(s.substr(0, s.size() - affix.size())));
        }
        return object;
    }
    // partition / rpartition
    bind({"sep"});
    const std::string_view sep = stringArgument(renderer, a[0], std::string(name).c_str());
    if (sep.empty()) {
        renderer.fail("empty separator");
    }
    const std::size_t at = name == "partition" ? s.find(sep) : s.rfind(sep);
    ValueList parts;
    if (at == std::string_view::npos) {
        const Value whole = Value::string(std::string(s)), empty = Value::string("");
        parts =
            name == "partition" ? ValueList{whole, empty, empty} : ValueList{empty, empty, whole};
    } else {
        parts = {Value::string(std::string(s.substr(0, at))), Value::string(std::string(sep)),
                 Value::string(std::string(s.substr(at + sep.size())))};
    }
    return renderer.makeList(std::move(parts), ListFlavor::Tuple);
}

std::string pythonReplace(Renderer &renderer, std::string_view s, std::string_view old_text,
                          std::string_view new_text, std::int64_t count) {
    std::string out;
    if (old_text.empty()) {
        // "" matches before every code point and at the end.
        std::int64_t done = 0;
        std::size_t pos = 0;
        while (pos <= s.size()) {
            if (count >= 0 && done >= count) {
                break;
            }
            out += new_text;
            ++done;
            renderer.checkSize(out.size() + s.size());
            if (pos == s.size()) {
                pos = s.size() + 1;
                break;
            }
            const std::size_t begin = pos;
            text::decodeAt(s, pos);
            out += s.substr(begin, pos - begin);
        }
        if (pos <= s.size()) {
            out += s.substr(pos);
        }
        return out;
    }
    std::size_t begin = 0;
    std::int64_t done = 0;
    for (std::size_t at = s.find(old_text);
         at != std::string_view::npos && (count < 0 || done < count);
         at = s.find(old_text, begin)) {
        out.append(s.substr(begin, at - begin)).append(new_text);
        renderer.checkSize(out.size());
        begin = at + old_text.size();
        ++done;
    }
    out.append(s.substr(begin));
    renderer.checkSize(out.size());
    return out;
}

} // namespace headroom::chat::jinja::detail
