// jinja2's filters on sequences and mappings: selection, mapping, sorting, aggregation.

#include "chat/jinja/filters.h"
#include "chat/jinja/functions.h"
#include "chat/jinja/python_text.h"
#include "chat/jinja/unicode_text.h"

#include <algorithm>
#include <unordered_set>

namespace headroom::chat::jinja::detail {

AttributePath parseAttributePath(const Value &attribute) {
    AttributePath path;
    if (attribute.isUndefined() || attribute.isNone()) {
        return path;
    }
    if (!attribute.isString()) {
        path.parts.push_back(attribute);
        return path;
    }
    const std::string_view s = attribute.asString();
    std::size_t begin = 0;
    for (;;) {
        const std::size_t dot = s.find('.', begin);
        const std::string_view part =
            s.substr(begin, dot == std::string_view::npos ? dot : dot - begin);
        const bool digits = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) {
            return c >= '0' && c <= '9';
        });
        std::int64_t index = 0;
        if (digits && part.size() < 18) {
            for (const char c : part) {
                index = index * 10 + (c - '0');
            }
            path.parts.push_back(Value::integer(index));
        } else {
            path.parts.push_back(Value::string(std::string(part)));
        }
        if (dot == std::string_view::npos) {
            break;
        }
        begin = dot + 1;
    }
    return path;
}

Value lookupPath(Renderer &renderer, Value item, const AttributePath &path) {
    for (const Value &part : path.parts) {
        item = renderer.getItem(item, part);
    }
    return item;
}

namespace {

Value lowerIfString(const Value &v) {
    return v.isString() ? Value::string(text::toLower(v.asString())) : v;
}

// A sort or comparison key: the attribute(s), lowercased unless case-sensitive.
struct KeyMaker {
    std::vector<AttributePath> paths; // several for "age,name"
    bool case_sensitive = false;
    bool multiple = false;

    // `allow_multiple`: sort's keys are lists of the attributes ("age,name"), compared as lists
    // (equal items first: undefined keys compare equal instead of failing).
    KeyMaker(const Value &attribute, bool case_sensitive_, bool allow_multiple)
        : case_sensitive(case_sensitive_) {
        if (allow_multiple) {
            multiple = true;
            if (!attribute.isString()) {
                paths.push_back(parseAttributePath(attribute));
                return;
            }
            const std::string_view s = attribute.asString();
            for (std::size_t begin = 0;;) {
                const std::size_t comma = s.find(',', begin);
                paths.push_back(
                    parseAttributePath(Value::string(std::string(s.substr(begin, comma - begin)))));
                if (comma == std::string_view::npos) {
                    break;
                }
                begin = comma + 1;
            }
        } else {
            paths.push_back(parseAttributePath(attribute));
        }
    }

    Value operator()(Renderer &renderer, const Value &item) const {
        if (!multiple) {
            const Value key = lookupPath(renderer, item, paths[0]);
            return case_sensitive ? key : lowerIfString(key);
        }
        ValueList keys;
        for (const AttributePath &path : paths) {
            const Value key = lookupPath(renderer, item, path);
            keys.push_back(case_sensitive ? key : lowerIfString(key));
        }
        return Value::list(std::move(keys));
    }
};

struct ValueHash {
    std::size_t operator()(const Value &v) const { return hashValue(v); }
};
struct ValueEqual {
    bool operator()(const Value &a, const Value &b) const { return valuesEqual(a, b); }
};

void requireHashable(Renderer &renderer, const Value &v) {
    if (!isHashable(v)) {
        renderer.fail(std::string("unhashable type: '") + pythonTypeName(v) + "'");
    }
}

Value filterLength(Renderer &r, const Value &v, CallArgs &args) {
    bindArguments("length", args, {}, nullptr);
    switch (v.kind()) {
    case ValueKind::Undefined:
        return Value::integer(0);
    case ValueKind::String:
        return Value::integer(static_cast<std::int64_t>(text::codePointCount(v.asString())));
    case ValueKind::List:
        return Value::integer(static_cast<std::int64_t>(v.listSize()));
    case ValueKind::Dict:
        return Value::integer(static_cast<std::int64_t>(v.dictSize()));
    default:
        r.fail(std::string("object of type '") + pythonTypeName(v) + "' has no len()");
    }
}

Value filterDefault(Renderer &, const Value &v, CallArgs &args) {
    Value a[2];
    bindArguments("default", args, {"default_value", "boolean"}, a);
    if (v.isUndefined() || (a[1].truthy() && !v.truthy())) {
        return a[0].isUndefined() ? Value::string("") : a[0];
    }
    return v;
}

Value filterList(Renderer &r, const Value &v, CallArgs &args) {
    bindArguments("list", args, {}, nullptr);
    return r.makeList(r.iterate(v));
}

Value filterFirst(Renderer &r, const Value &v, CallArgs &args) {
    bindArguments("first", args, {}, nullptr);
    if (v.isList()) {
        return v.listSize() > 0 ? v.listAt(0)
                                : Value::undefinedMessage("No first item, sequence was empty.");
    }
    const ValueList items = r.iterate(v);
    return items.empty() ? Value::undefinedMessage("No first item, sequence was empty.")
                         : items.front();
}

Value filterLast(Renderer &r, const Value &v, CallArgs &args) {
    bindArguments("last", args, {}, nullptr);
    if (v.kind() == ValueKind::Iterator) {
        r.fail(std::string("'") + pythonTypeName(v) + "' object is not reversible");
    }
    if (v.isList()) {
        return v.listSize() > 0 ? v.listAt(v.listSize() - 1)
                                : Value::undefinedMessage("No last item, sequence was empty.");
    }
    const ValueList items = r.iterate(v);
    return items.empty() ? Value::undefinedMessage("No last item, sequence was empty.")
                         : items.back();
}

Value filterReverse(Renderer &r, const Value &v, CallArgs &args) {
    bindArguments("reverse", args, {}, nullptr);
    if (v.isString()) {
        std::vector<std::string_view> points;
        const std::string_view s = v.asString();
        for (std::size_t pos = 0; pos < s.size();) {
            const std::size_t begin = pos;
            text::decodeAt(s, pos);
            points.push_back(s.substr(begin, pos - begin));
        }
        std::string out;
        out.reserve(s.size());
        for (auto it = points.rbegin(); it != points.rend(); ++it) {
            out += *it;
        }
        return Value::string(std::move(out));
    }
    const bool iterator = v.kind() == ValueKind::Iterator;
    if (!v.isList() && !v.isDict() && !v.isUndefined() && !iterator) {
        r.fail("argument must be iterable");
    }
    ValueList items = r.iterate(v);
    std::reverse(items.begin(), items.end());
    if (iterator) {
        return r.makeList(std::move(items)); // reversed() fails on generators; list(value) reversed
    }
    return r.makeIterator(std::move(items),
                          v.isDict() ? "dict_reversekeyiterator" : "list_reverseiterator");
}

Value filterJoin(Renderer &r, const Value &v, CallArgs &args) {
    Value a[2];
    bindArguments("join", args, {"d", "attribute"}, a);
    const AttributePath path = parseAttributePath(a[1]);
    const std::string separator = a[0].isUndefined() ? std::string() : toStr(a[0]);
    std::string out;
    bool first = true;
    for (const Value &item : r.iterate(v)) {
        if (!first) {
            out += separator;
        }
        first = false;
        appendStr(out, path.parts.empty() ? item : lookupPath(r, item, path));
        r.checkSize(out.size());
    }
    r.stepBytes(out.size());
    return Value::string(std::move(out));
}

Value filterItems(Renderer &r, const Value &v, CallArgs &args) {
    bindArguments("items", args, {}, nullptr);
    if (v.isUndefined()) {
        return r.makeIterator({});
    }
    if (!v.isDict()) {
        r.fail("Can only get item pairs from a mapping.");
    }
    ValueList pairs;
    for (std::size_t i = 0; i < v.dictSize(); ++i) {
        pairs.push_back(r.makeList({v.dictKeyAt(i), v.dictValueAt(i)}, ListFlavor::Tuple));
    }
    return r.makeIterator(std::move(pairs));
}

// The items of (sort key, item) pairs in key order, stable, as Python's sorted().
Value sortedByKey(Renderer &r, std::vector<std::pair<Value, Value>> keyed, bool reverse) {
    r.step(static_cast<std::int64_t>(keyed.size()) * 4);
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto &x, const auto &y) {
        return reverse ? compareValues(y.first, x.first) < 0 : compareValues(x.first, y.first) < 0;
    });
    ValueList items;
    for (auto &entry : keyed) {
        items.push_back(std::move(entry.second));
    }
    return r.makeList(std::move(items));
}

Value filterDictsort(Renderer &r, const Value &v, CallArgs &args) {
    Value a[3];
    bindArguments("dictsort", args, {"case_sensitive", "by", "reverse"}, a);
    const std::string by = a[1].isUndefined() ? "key" : toStr(a[1]);
    if (by != "key" && by != "value") {
        r.fail("You can only sort by either \"key\" or \"value\"");
    }
    if (!v.isDict()) {
        r.fail(std::string("'") + pythonTypeName(v) + "' object has no attribute 'items'");
    }
    std::vector<std::pair<Value, Value>> keyed; // (sort key, item)
    for (std::size_t i = 0; i < v.dictSize(); ++i) {
        const Value key = by == "key" ? v.dictKeyAt(i) : v.dictValueAt(i);
        keyed.emplace_back(a[0].truthy() ? key : lowerIfString(key),
                           r.makeList({v.dictKeyAt(i), v.dictValueAt(i)}, ListFlavor::Tuple));
    }
    return sortedByKey(r, std::move(keyed), a[2].truthy());
}

Value filterSort(Renderer &r, const Value &v, CallArgs &args) {
    Value a[3];
    bindArguments("sort", args, {"reverse", "case_sensitive", "attribute"}, a);
    const KeyMaker key(a[2], a[1].truthy(), true);
    std::vector<std::pair<Value, Value>> keyed;
    for (Value &item : r.iterate(v)) {
        keyed.emplace_back(key(r, item), std::move(item));
    }
    return sortedByKey(r, std::move(keyed), a[0].truthy());
}

Value filterUnique(Renderer &r, const Value &v, CallArgs &args) {
    Value a[2];
    bindArguments("unique", args, {"case_sensitive", "attribute"}, a);
    const KeyMaker key(a[1], a[0].truthy(), false);
    std::unordered_set<Value, ValueHash, ValueEqual> seen;
    ValueList items;
    for (Value &item : r.iterate(v)) {
        const Value k = key(r, item);
        requireHashable(r, k);
        if (seen.insert(k).second) {
            items.push_back(std::move(item));
        }
    }
    return r.makeIterator(std::move(items));
}

Value minOrMax(Renderer &r, const Value &v, CallArgs &args, bool maximum) {
    Value a[2];
    bindArguments(maximum ? "max" : "min", args, {"case_sensitive", "attribute"}, a);
    const KeyMaker key(a[1], a[0].truthy(), false);
    const ValueList items = r.iterate(v);
    if (items.empty()) {
        return Value::undefinedMessage("No aggregated item, sequence was empty.");
    }
    std::size_t best = 0;
    Value best_key = key(r, items[0]);
    for (std::size_t i = 1; i < items.size(); ++i) {
        Value k = key(r, items[i]);
        const int c = compareValues(k, best_key);
        if (maximum ? c > 0 : c < 0) {
            best = i;
            best_key = std::move(k);
        }
    }
    return items[best];
}

Value filterMax(Renderer &r, const Value &v, CallArgs &args) {
    return minOrMax(r, v, args, true);
}
Value filterMin(Renderer &r, const Value &v, CallArgs &args) {
    return minOrMax(r, v, args, false);
}

Value filterSum(Renderer &r, const Value &v, CallArgs &args) {
    Value a[2];
    bindArguments("sum", args, {"attribute", "start"}, a);
    const AttributePath path = parseAttributePath(a[0]);
    Value total = a[1].isUndefined() ? Value::integer(0) : a[1];
    for (const Value &item : r.iterate(v)) {
        const Value term = path.parts.empty() ? item : lookupPath(r, item, path);
        if (!total.isNumber() || !term.isNumber()) {
            r.fail(std::string("unsupported operand type(s) for +: '") + pythonTypeName(total) +
                   "' and '" + pythonTypeName(term) + "'");
        }
        if (total.isFloat() || term.isFloat()) {
            total = Value::number(total.asDouble() + term.asDouble());
        } else {
            std::int64_t sum = 0;
            if (__builtin_add_overflow(total.asInt(), term.asInt(), &sum)) {
                r.fail("integer overflow");
            }
            total = Value::integer(sum);
        }
    }
    return total;
}

Value filterAttr(Renderer &r, const Value &v, CallArgs &args) {
    Value name;
    bindArguments("attr", args, {"name"}, &name);
    if (!name.isString()) {
        r.fail("attribute name must be a string");
    }
    if (v.isDict()) { // attributes of a dict are its methods, never its items
        return findMethod(v, name.asString()) == MethodKind::None
                   ? Value::undefined(UndefinedReason::Attribute, nullptr,
                                      std::make_shared<std::string>(name.asString()), "dict")
                   : r.getAttribute(v, name.asString());
    }
    return r.getAttribute(v, name.asString());
}

// map(filter, *args, **kwargs) or map(attribute=..., default=...).
Value filterMap(Renderer &r, const Value &v, CallArgs &args) {
    ValueList items;
    if (!v.truthy()) {
        return r.makeIterator(std::move(items));
    }
    Value attribute, fallback;
    bool by_attribute = false;
    if (args.positional.empty()) {
        for (const auto &[key, value] : args.keywords) {
            if (key == "attribute") {
                attribute = value;
                by_attribute = true;
            } else if (key == "default") {
                fallback = value;
            } else {
                r.fail("Unexpected keyword argument '" + key + "'");
            }
        }
        if (!by_attribute) {
            r.fail("map requires a filter argument");
        }
    }
    const ValueList source = r.iterate(v);
    items.reserve(source.size());
    if (by_attribute) {
        const AttributePath path = parseAttributePath(attribute);
        for (const Value &item : source) {
            r.step();
            Value mapped = lookupPath(r, item, path);
            items.push_back(mapped.isUndefined() && !fallback.isUndefined() && !fallback.isNone()
                                ? fallback
                                : mapped);
        }
        return r.makeIterator(std::move(items));
    }
    const std::string filter = toStr(args.positional[0]);
    for (const Value &item : source) {
        CallArgs call;
        call.positional.assign(args.positional.begin() + 1, args.positional.end());
        call.keywords = args.keywords;
        items.push_back(r.callFilter(filter, item, call));
    }
    return r.makeIterator(std::move(items));
}

// select / reject / selectattr / rejectattr.
Value selectOrReject(Renderer &r, const Value &v, CallArgs &args, bool select, bool by_attribute) {
    ValueList items;
    if (!v.truthy()) {
        return r.makeIterator(std::move(items));
    }
    std::size_t next = 0;
    AttributePath path;
    if (by_attribute) {
        if (args.positional.empty()) {
            r.fail("Missing parameter for attribute name");
        }
        path = parseAttributePath(args.positional[next++]);
    }
    const bool has_test = next < args.positional.size();
    const std::string test = has_test ? toStr(args.positional[next++]) : std::string();
    for (Value &item : r.iterate(v)) {
        r.step();
        const Value subject = by_attribute ? lookupPath(r, item, path) : item;
        bool passed = false;
        if (has_test) {
            CallArgs call;
            call.positional.assign(args.positional.begin() + static_cast<std::ptrdiff_t>(next),
                                   args.positional.end());
            call.keywords = args.keywords;
            passed = r.callTest(test, subject, call);
        } else {
            passed = subject.truthy();
        }
        if (passed == select) {
            items.push_back(std::move(item));
        }
    }
    return r.makeIterator(std::move(items));
}

Value filterSelect(Renderer &r, const Value &v, CallArgs &args) {
    return selectOrReject(r, v, args, true, false);
}
Value filterReject(Renderer &r, const Value &v, CallArgs &args) {
    return selectOrReject(r, v, args, false, false);
}
Value filterSelectattr(Renderer &r, const Value &v, CallArgs &args) {
    return selectOrReject(r, v, args, true, true);
}
Value filterRejectattr(Renderer &r, const Value &v, CallArgs &args) {
    return selectOrReject(r, v, args, false, true);
}

Value filterBatch(Renderer &r, const Value &v, CallArgs &args) {
    Value a[2];
    bindArguments("batch", args, {"linecount", "fill_with"}, a);
    if (!a[0].isInt() || a[0].asInt() <= 0) {
        r.fail("batch() needs a positive line count");
    }
    const auto size = static_cast<std::size_t>(a[0].asInt());
    ValueList batches, current;
    for (Value &item : r.iterate(v)) {
        if (current.size() == size) {
            batches.push_back(r.makeList(std::move(current)));
            current.clear();
        }
        current.push_back(std::move(item));
    }
    if (!current.empty()) {
        while (!a[1].isUndefined() && !a[1].isNone() && current.size() < size) {
            r.step();
            current.push_back(a[1]);
        }
        batches.push_back(r.makeList(std::move(current)));
    }
    return r.makeIterator(std::move(batches));
}

Value filterSlice(Renderer &r, const Value &v, CallArgs &args) {
    Value a[2];
    bindArguments("slice", args, {"slices", "fill_with"}, a);
    if (!a[0].isInt() || a[0].asInt() <= 0 || a[0].asInt() > 100000) {
        r.fail("slice() needs a positive number of slices");
    }
    const ValueList seq = r.iterate(v);
    const auto slices = static_cast<std::size_t>(a[0].asInt());
    const std::size_t per_slice = seq.size() / slices, with_extra = seq.size() % slices;
    r.step(static_cast<std::int64_t>(slices));
    ValueList out;
    std::size_t offset = 0;
    for (std::size_t n = 0; n < slices; ++n) {
        const std::size_t start = offset + n * per_slice;
        if (n < with_extra) {
            ++offset;
        }
        const std::size_t end = offset + (n + 1) * per_slice;
        ValueList part(seq.begin() + static_cast<std::ptrdiff_t>(start),
                       seq.begin() + static_cast<std::ptrdiff_t>(end));
        if (!a[1].isUndefined() && !a[1].isNone() && n >= with_extra) {
            part.push_back(a[1]);
        }
        out.push_back(r.makeList(std::move(part)));
    }
    return r.makeIterator(std::move(out));
}

Value filterGroupby(Renderer &r, const Value &v, CallArgs &args) {
    Value a[3];
    bindArguments("groupby", args, {"attribute", "default", "case_sensitive"}, a);
    const AttributePath path = parseAttributePath(a[0]);
    const bool case_sensitive = a[2].truthy();
    const auto keyOf = [&](const Value &item, bool fold) {
        Value key = lookupPath(r, item, path);
        if (key.isUndefined() && !a[1].isUndefined() && !a[1].isNone()) {
            key = a[1];
        }
        return fold && !case_sensitive ? lowerIfString(key) : key;
    };
    std::vector<std::pair<Value, Value>> keyed;
    for (Value &item : r.iterate(v)) {
        keyed.emplace_back(keyOf(item, true), std::move(item));
    }
    r.step(static_cast<std::int64_t>(keyed.size()) * 4);
    std::stable_sort(keyed.begin(), keyed.end(), [&](const auto &x, const auto &y) {
        return compareValues(x.first, y.first) < 0;
    });
    ValueList groups;
    for (std::size_t i = 0; i < keyed.size();) {
        ValueList members;
        std::size_t j = i;
        for (; j < keyed.size() && valuesEqual(keyed[j].first, keyed[i].first); ++j) {
            members.push_back(keyed[j].second);
        }
        const Value grouper = keyOf(keyed[i].second, false);
        groups.push_back(r.makeList({grouper, r.makeList(std::move(members))}, ListFlavor::Group));
        i = j;
    }
    return r.makeList(std::move(groups));
}

// Python runs a generator function's body only when the generator is iterated: the errors of
// these filters surface then, not where the filter is applied (printing one never fails).
template <FilterFunction Eager> Value lazily(Renderer &r, const Value &v, CallArgs &args) {
    try {
        return Eager(r, v, args);
    } catch (const LimitError &) {
        throw;
    } catch (const TemplateError &error) {
        Value failing = r.makeIterator({});
        failing.iteratorState()->error = error.what();
        return failing;
    }
}

} // namespace

void addSequenceFilters(std::vector<FilterEntry> &table) {
    table.insert(table.end(), {
                                  {"length", filterLength},
                                  {"count", filterLength},
                                  {"default", filterDefault},
                                  {"d", filterDefault},
                                  {"list", filterList},
                                  {"first", filterFirst},
                                  {"last", filterLast},
                                  {"reverse", filterReverse},
                                  {"join", filterJoin},
                                  {"items", lazily<filterItems>},
                                  {"dictsort", filterDictsort},
                                  {"sort", filterSort},
                                  {"unique", lazily<filterUnique>},
                                  {"max", filterMax},
                                  {"min", filterMin},
                                  {"sum", filterSum},
                                  {"attr", filterAttr},
                                  {"map", lazily<filterMap>},
                                  {"select", lazily<filterSelect>},
                                  {"reject", lazily<filterReject>},
                                  {"selectattr", lazily<filterSelectattr>},
                                  {"rejectattr", lazily<filterRejectattr>},
                                  {"batch", lazily<filterBatch>},
                                  {"slice", lazily<filterSlice>},
                                  {"groupby", filterGroupby},
                              });
}

} // namespace headroom::chat::jinja::detail
