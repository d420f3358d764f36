// The Python methods templates call on strings, dicts and lists (message.content.strip(),
// tool.items(), ...). The immutable sandbox refuses the ones that modify lists and dicts.

#include "chat/jinja/functions.h"
#include "chat/jinja/objects.h"
#include "chat/jinja/python_text.h"
#include "chat/jinja/renderer.h"

#include <algorithm>
#include <array>

namespace headroom::chat::jinja::detail {

namespace {

constexpr std::array<std::string_view, 40> kStringMethods = {
    "strip",        "lstrip",    "rstrip",     "split",        "rsplit",  "splitlines",
    "startswith",   "endswith",  "upper",      "lower",        "title",   "capitalize",
    "swapcase",     "casefold",  "replace",    "find",         "rfind",   "index",
    "rindex",       "count",     "join",       "format",       "isdigit", "isalpha",
    "isalnum",      "isspace",   "isupper",    "islower",      "istitle", "isnumeric",
    "isdecimal",    "zfill",     "center",     "ljust",        "rjust",   "removeprefix",
    "removesuffix", "partition", "rpartition", "isidentifier",
};
constexpr std::array<std::string_view, 5> kDictMethods = {"keys", "values", "items", "get", "copy"};
constexpr std::array<std::string_view, 5> kDictUnsafe = {"clear", "pop", "popitem", "setdefault",
                                                         "update"};
constexpr std::array<std::string_view, 3> kListMethods = {"index", "count", "copy"};
constexpr std::array<std::string_view, 8> kListUnsafe = {"append", "clear", "pop",    "reverse",
                                                         "insert", "sort",  "extend", "remove"};

template <std::size_t N>
bool contains(const std::array<std::string_view, N> &names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

} // namespace

MethodKind findMethod(const Value &object, std::string_view name) {
    switch (object.kind()) {
    case ValueKind::String:
        return contains(kStringMethods, name) ? MethodKind::Safe : MethodKind::None;
    case ValueKind::Dict:
        if (contains(kDictMethods, name)) {
            return MethodKind::Safe;
        }
        return contains(kDictUnsafe, name) ? MethodKind::Unsafe : MethodKind::None;
    case ValueKind::List:
        if (object.flavor() == ListFlavor::Tuple || object.flavor() == ListFlavor::Group) {
            return name == "index" || name == "count" ? MethodKind::Safe : MethodKind::None;
        }
        if (object.flavor() != ListFlavor::List) {
            return MethodKind::None;
        }
        if (contains(kListMethods, name)) {
            return MethodKind::Safe;
        }
        return contains(kListUnsafe, name) ? MethodKind::Unsafe : MethodKind::None;
    default:
        return MethodKind::None;
    }
}

Value boundMethod(const Value &object, std::string_view name) {
    return Value::object(std::make_shared<BoundMethod>(object, std::string(name)));
}

Value callMethod(Renderer &renderer, const Value &object, std::string_view name, CallArgs &call) {
    if (object.isString()) {
        return callStringMethod(renderer, object, name, call);
    }
    Value a[3];
    const auto bind = [&](std::initializer_list<std::string_view> names) {
        bindArguments(std::string(name).c_str(), call, names, a);
    };
    if (object.isDict()) {
        const std::size_t n = object.dictSize();
        renderer.step(static_cast<std::int64_t>(n));
        if (name == "get") {
            bind({"key", "default"});
            Value found;
            if (isHashable(a[0]) && object.dictFind(a[0], found)) {
                return found;
            }
            return a[1].isUndefined() ? Value::none() : a[1];
        }
        bind({});
        if (name == "copy") {
            auto data = std::make_shared<DictData>();
            for (std::size_t i = 0; i < n; ++i) {
                data->items.emplace_back(object.dictKeyAt(i), object.dictValueAt(i));
            }
            return renderer.makeDict(std::move(data));
        }
        ValueList items;
        items.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            if (name == "keys") {
                items.push_back(object.dictKeyAt(i));
            } else if (name == "values") {
                items.push_back(object.dictValueAt(i));
            } else {
                items.push_back(renderer.makeList({object.dictKeyAt(i), object.dictValueAt(i)},
                                                  ListFlavor::Tuple));
            }
        }
        const ListFlavor flavor = name == "keys"     ? ListFlavor::DictKeys
                                  : name == "values" ? ListFlavor::DictValues
                                                     : ListFlavor::DictItems;
        return renderer.makeList(std::move(items), flavor);
    }
    // Lists and tuples.
    const ValueList items = renderer.iterate(object);
    renderer.step(static_cast<std::int64_t>(items.size()));
    if (name == "copy") {
        bind({});
        return renderer.makeList(items);
    }
    bind({"value", "start", "stop"});
    if (name == "count") {
        std::int64_t n = 0;
        for (const Value &item : items) {
            n += valuesEqual(item, a[0]) ? 1 : 0;
        }
        return Value::integer(n);
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (valuesEqual(items[i], a[0])) {
            return Value::integer(static_cast<std::int64_t>(i));
        }
    }
    renderer.fail(toRepr(a[0]) + " is not in list");
}

} // namespace headroom::chat::jinja::detail
