// Attribute and item access the way jinja2's immutable sandbox resolves them, slicing, and
// iteration.

#include "chat/jinja/functions.h"
#include "chat/jinja/renderer.h"
#include "chat/jinja/unicode_text.h"

#include <algorithm>
#include <limits>

namespace headroom::chat::jinja::detail {

namespace {

Value missingAttribute(const Value &object, std::string_view name) {
    return Value::undefined(UndefinedReason::Attribute, nullptr,
                            std::make_shared<std::string>(name),
                            object.isNone() ? nullptr : pythonTypeName(object));
}

Value unsafeAttribute(const Value &object, std::string_view name) {
    return Value::undefined(UndefinedReason::Unsafe, nullptr, std::make_shared<std::string>(name),
                            pythonTypeName(object));
}

// A method read as an attribute: bound, or an undefined the sandbox fails on when called.
bool methodAttribute(const Value &object, std::string_view name, Value &out) {
    switch (findMethod(object, name)) {
    case MethodKind::Safe:
        out = boundMethod(object, name);
        return true;
    case MethodKind::Unsafe:
        out = unsafeAttribute(object, name);
        return true;
    case MethodKind::None:
        return false;
    }
    return false;
}

// One code point of a string as a string, by code point index (negative from the end).
bool stringIndex(std::string_view s, std::int64_t index, Value &out) {
    const bool ascii = text::isAscii(s);
    const auto length = static_cast<std::int64_t>(ascii ? s.size() : text::codePointCount(s));
    if (index < 0) {
        index += length;
    }
    if (index < 0 || index >= length) {
        return false;
    }
    if (ascii) {
        out = Value::string(std::string(1, s[static_cast<std::size_t>(index)]));
        return true;
    }
    std::size_t begin = text::byteOffsetOfCodePoint(s, static_cast<std::size_t>(index));
    std::size_t end = begin;
    text::decodeAt(s, end);
    out = Value::string(std::string(s.substr(begin, end - begin)));
    return true;
}

} // namespace

Value Renderer::getAttribute(const Value &object, std::string_view name) {
    Value out;
    switch (object.kind()) {
    case ValueKind::Undefined:
        fail(object.undefinedMessage());
    case ValueKind::Dict:
        // getattr(dict, name) finds the methods first, then jinja2 falls back to the item.
        if (methodAttribute(object, name, out) || object.dictFind(name, out)) {
            return out;
        }
        return missingAttribute(object, name);
    case ValueKind::List:
        if (object.flavor() == ListFlavor::Group && (name == "grouper" || name == "list")) {
            return object.listAt(name == "grouper" ? 0 : 1); // groupby's (grouper, list) tuples
        }
        [[fallthrough]];
    case ValueKind::String:
        if (methodAttribute(object, name, out)) {
            return out;
        }
        return missingAttribute(object, name);
    case ValueKind::Object:
        if (!name.empty() && name[0] == '_') {
            return unsafeAttribute(object, name);
        }
        return object.asObject()->attribute(name);
    default:
        return missingAttribute(object, name);
    }
}

Value Renderer::getItem(const Value &object, const Value &key) {
    Value out;
    switch (object.kind()) {
    case ValueKind::Undefined:
        fail(object.undefinedMessage());
    case ValueKind::List:
        if ((key.isInt() || key.isBool()) && object.flavor() != ListFlavor::DictItems &&
            object.flavor() != ListFlavor::DictKeys && object.flavor() != ListFlavor::DictValues) {
            std::int64_t index = key.asInt();
            const auto length = static_cast<std::int64_t>(object.listSize());
            if (index < 0) {
                index += length;
            }
            if (index >= 0 && index < length) {
                return object.listAt(static_cast<std::size_t>(index));
            }
        } else if (key.isString() && methodAttribute(object, key.asString(), out)) {
            return out;
        }
        break;
    case ValueKind::String:
        if (key.isInt() || key.isBool()) {
            if (stringIndex(object.asString(), key.asInt(), out)) {
                return out;
            }
        } else if (key.isString() && methodAttribute(object, key.asString(), out)) {
            return out;
        }
        break;
    case ValueKind::Dict:
        if (isHashable(key) && object.dictFind(key, out)) {
            return out;
        }
        if (key.isString() && methodAttribute(object, key.asString(), out)) {
            return out;
        }
        break;
    case ValueKind::Object:
        if (key.isString()) {
            return getAttribute(object, key.asString());
        }
        break;
    default:
        break;
    }
    std::string shown;
    if (key.isString()) {
        shown = std::string(key.asString());
    } else if (key.isInt()) {
        shown = std::to_string(key.asInt());
    }
    return missingAttribute(object, shown);
}

Value Renderer::evalSlice(const Value &object, const SliceExpr &slice, bool forgiving) {
    const Value start_value = slice.start ? eval(*slice.start) : Value::none();
    const Value stop_value = slice.stop ? eval(*slice.stop) : Value::none();
    const Value step_value = slice.step ? eval(*slice.step) : Value::none();
    line_ = slice.line;
    if (object.isUndefined()) {
        fail(object.undefinedMessage());
    }
    // Slices bypass jinja2's getitem: Python's own errors come through (unless jinja2 folded a
    // slice of constants through getitem, which turns them into undefined).
    const auto sliceError = [&](const std::string &message) -> Value {
        if (forgiving) {
            return Value::undefinedMessage(message);
        }
        fail(message);
    };
    const bool view = object.isList() && (object.flavor() == ListFlavor::DictItems ||
                                          object.flavor() == ListFlavor::DictKeys ||
                                          object.flavor() == ListFlavor::DictValues);
    if (object.isDict()) {
        return sliceError("unhashable type: 'slice'");
    }
    if (!(object.isList() || object.isString()) || view) {
        return sliceError(std::string("'") + pythonTypeName(object) +
                          "' object is not subscriptable");
    }
    const auto isIndex = [](const Value &v) {
        return v.isNone() || v.isInt() || v.isBool();
    };
    if (!isIndex(start_value) || !isIndex(stop_value) || !isIndex(step_value)) {
        return sliceError("slice indices must be integers or None or have an __index__ method");
    }
    const std::int64_t stride = step_value.isNone() ? 1 : step_value.asInt();
    if (stride == 0) {
        return sliceError("slice step cannot be zero");
    }
    const bool ascii = object.isString() && text::isAscii(object.asString());
    const std::int64_t length =
        object.isList()
            ? static_cast<std::int64_t>(object.listSize())
            : static_cast<std::int64_t>(ascii ? object.asString().size()
                                              : text::codePointCount(object.asString()));
    // CPython's PySlice_AdjustIndices.
    const std::int64_t lower = stride < 0 ? -1 : 0;
    const std::int64_t upper = stride < 0 ? length - 1 : length;
    const auto adjust = [&](const Value &v, std::int64_t fallback) {
        if (v.isNone()) {
            return fallback;
        }
        std::int64_t i = v.asInt();
        if (i < 0) {
            i = i < -length ? lower : i + length;
            return std::max(i, lower);
        }
        return std::min(i, upper);
    };
    const std::int64_t start = adjust(start_value, stride < 0 ? upper : lower);
    const std::int64_t stop = adjust(stop_value, stride < 0 ? lower : upper);
    std::vector<std::size_t> indexes;
    for (std::int64_t i = start; stride > 0 ? i < stop : i > stop; i += stride) {
        indexes.push_back(static_cast<std::size_t>(i));
        if ((stride > 0 && i > std::numeric_limits<std::int64_t>::max() - stride) ||
            (stride < 0 && i < std::numeric_limits<std::int64_t>::min() - stride)) {
            break;
        }
    }
    step(static_cast<std::int64_t>(indexes.size()));
    if (object.isList()) {
        ValueList items;
        items.reserve(indexes.size());
        for (const std::size_t i : indexes) {
            items.push_back(object.listAt(i));
        }
        if (object.flavor() == ListFlavor::Range) { // a slice of a range is a range
            const ListData *range = object.listData();
            auto data = std::make_shared<ListData>();
            data->items = std::move(items);
            data->range_start = range->range_start + start * range->range_step;
            data->range_stop = range->range_start + stop * range->range_step;
            data->range_step = range->range_step * stride;
            return Value::list(std::move(data), ListFlavor::Range);
        }
        const ListFlavor flavor =
            object.flavor() == ListFlavor::Tuple ? ListFlavor::Tuple : ListFlavor::List;
        return makeList(std::move(items), flavor);
    }
    const std::string_view s = object.asString();
    std::string out;
    if (ascii) {
        for (const std::size_t i : indexes) {
            out += s[i];
        }
        return Value::string(std::move(out));
    }
    std::vector<std::pair<std::size_t, std::size_t>> spans; // code point -> bytes
    spans.reserve(static_cast<std::size_t>(length));
    for (std::size_t pos = 0; pos < s.size();) {
        const std::size_t begin = pos;
        text::decodeAt(s, pos);
        spans.emplace_back(begin, pos - begin);
    }
    for (const std::size_t i : indexes) {
        out.append(s.substr(spans[i].first, spans[i].second));
    }
    return Value::string(std::move(out));
}

ValueList Renderer::iterate(const Value &value) {
    ValueList items;
    switch (value.kind()) {
    case ValueKind::Undefined:
        return items;
    case ValueKind::List: {
        if (const ListData *data = value.listData()) {
            step(static_cast<std::int64_t>(data->items.size() / 8));
            return data->items;
        }
        const std::size_t n = value.listSize();
        step(static_cast<std::int64_t>(n / 8));
        items.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            items.push_back(value.listAt(i));
        }
        return items;
    }
    case ValueKind::Dict: {
        const std::size_t n = value.dictSize();
        items.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            items.push_back(value.dictKeyAt(i));
        }
        return items;
    }
    case ValueKind::String: {
        const std::string_view s = value.asString();
        stepBytes(s.size());
        for (std::size_t pos = 0; pos < s.size();) {
            const std::size_t begin = pos;
            text::decodeAt(s, pos);
            items.push_back(Value::string(std::string(s.substr(begin, pos - begin))));
        }
        return items;
    }
    case ValueKind::Iterator: {
        IteratorState *state = value.iteratorState();
        if (!state->error.empty()) {
            fail(state->error);
        }
        items.assign(state->items.begin() + static_cast<std::ptrdiff_t>(state->position),
                     state->items.end());
        state->position = state->items.size();
        return items;
    }
    default:
        fail(std::string("'") + pythonTypeName(value) + "' object is not iterable");
    }
}

} // namespace headroom::chat::jinja::detail
