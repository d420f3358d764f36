#include "chat/jinja/value.h"

#include "chat/jinja/python_text.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace headroom::chat::jinja {

void Object::repr(std::string &out, int) const {
    out += '<';
    out += typeName();
    out += " object>";
}

Value Object::attribute(std::string_view name) const {
    return Value::undefined(UndefinedReason::Attribute, nullptr,
                            std::make_shared<std::string>(name), typeName());
}

Value Object::call(detail::Renderer &, CallArgs &) const {
    throw TemplateError(std::string("'") + typeName() + "' object is not callable", 0);
}

bool Object::setAttribute(std::string_view, Value) {
    return false;
}

const Value *DictData::find(std::string_view key) const {
    for (const auto &[k, v] : items) {
        if (k.isString() && k.asString() == key) {
            return &v;
        }
    }
    return nullptr;
}

const Value *DictData::find(const Value &key) const {
    if (key.isString()) {
        return find(key.asString());
    }
    for (const auto &[k, v] : items) {
        if (valuesEqual(k, key)) {
            return &v;
        }
    }
    return nullptr;
}

void DictData::set(Value key, Value value) {
    for (auto &[k, v] : items) {
        if (valuesEqual(k, key)) {
            v = std::move(value);
            return;
        }
    }
    items.emplace_back(std::move(key), std::move(value));
}

Value Value::boolean(bool b) {
    Value v(ValueKind::Bool);
    v.b_ = b;
    return v;
}

Value Value::integer(std::int64_t i) {
    Value v(ValueKind::Int);
    v.i_ = i;
    return v;
}

Value Value::number(double f) {
    Value v(ValueKind::Float);
    v.f_ = f;
    return v;
}

Value Value::string(std::string s) {
    Value v(ValueKind::String);
    auto owned = std::make_shared<std::string>(std::move(s));
    v.s_ = owned.get();
    v.hold_ = std::move(owned);
    return v;
}

Value Value::borrowedString(const std::string &s) {
    Value v(ValueKind::String);
    v.s_ = &s;
    return v;
}

Value Value::list(ValueList items, ListFlavor flavor) {
    auto data = std::make_shared<ListData>();
    data->items = std::move(items);
    return list(std::move(data), flavor);
}

namespace {

int nestingOf(const Value &v) {
    if (v.isList() && v.listData() != nullptr) {
        return v.listData()->depth;
    }
    if (v.isDict() && v.json() == nullptr) {
        return v.dictData()->depth;
    }
    if (v.kind() == ValueKind::Iterator) {
        return v.iteratorState()->depth;
    }
    return 0;
}

int nestingOfItems(const ValueList &items) {
    int depth = 0;
    for (const Value &item : items) {
        depth = std::max(depth, nestingOf(item));
    }
    if (depth + 1 > kMaxValueDepth) {
        throw TemplateError("data nested too deeply", 0);
    }
    return depth + 1;
}

} // namespace

Value Value::list(std::shared_ptr<ListData> data, ListFlavor flavor) {
    data->depth = nestingOfItems(data->items);
    Value v(ValueKind::List);
    v.flavor_ = flavor;
    v.l_ = data.get();
    v.hold_ = std::move(data);
    return v;
}

Value Value::dict(std::shared_ptr<DictData> data) {
    int depth = 0;
    for (const auto &[key, value] : data->items) {
        depth = std::max({depth, nestingOf(key), nestingOf(value)});
    }
    if (depth + 1 > kMaxValueDepth) {
        throw TemplateError("data nested too deeply", 0);
    }
    data->depth = depth + 1;
    Value v(ValueKind::Dict);
    v.d_ = data.get();
    v.hold_ = std::move(data);
    return v;
}

Value Value::iterator(ValueList items, const char *type_name) {
    Value v(ValueKind::Iterator);
    auto state = std::make_shared<IteratorState>();
    state->depth = nestingOfItems(items);
    state->items = std::move(items);
    state->type_name = type_name;
    v.hold_ = std::move(state);
    return v;
}

Value Value::object(std::shared_ptr<Object> object) {
    Value v(ValueKind::Object);
    v.hold_ = std::move(object);
    return v;
}

Value Value::fromJson(const Json &json) {
    switch (json.type()) {
    case Json::value_t::boolean:
        return boolean(json.get<bool>());
    case Json::value_t::number_integer:
        return integer(json.get<std::int64_t>());
    case Json::value_t::number_unsigned: {
        const auto u = json.get<std::uint64_t>();
        if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
            return integer(static_cast<std::int64_t>(u));
        }
        return number(static_cast<double>(u));
    }
    case Json::value_t::number_float:
        return number(json.get<double>());
    case Json::value_t::string:
        return borrowedString(json.get_ref<const std::string &>());
    case Json::value_t::array: {
        Value v(ValueKind::List);
        v.json_ = true;
        v.j_ = &json;
        return v;
    }
    case Json::value_t::object: {
        Value v(ValueKind::Dict);
        v.json_ = true;
        v.j_ = &json;
        return v;
    }
    default:
        return none();
    }
}

Value Value::undefined(UndefinedReason reason, const std::string *name,
                       std::shared_ptr<std::string> owned, const char *owner_type) {
    Value v;
    v.undefined_reason_ = reason;
    v.s_ = owned ? owned.get() : name;
    v.hold_ = std::move(owned);
    v.owner_type_ = owner_type;
    return v;
}

Value Value::undefinedName(const std::string &name) {
    return undefined(UndefinedReason::Name, &name);
}

Value Value::undefinedMessage(std::string message) {
    return undefined(UndefinedReason::Message, nullptr,
                     std::make_shared<std::string>(std::move(message)));
}

double Value::asDouble() const {
    switch (kind_) {
    case ValueKind::Float:
        return f_;
    case ValueKind::Int:
        return static_cast<double>(i_);
    case ValueKind::Bool:
        return b_ ? 1.0 : 0.0;
    default:
        return 0.0;
    }
}

std::size_t Value::listSize() const {
    return json_ ? j_->size() : l_->items.size();
}

Value Value::listAt(std::size_t index) const {
    return json_ ? fromJson((*j_)[index]) : l_->items[index];
}

std::size_t Value::dictSize() const {
    return json_ ? j_->size() : d_->items.size();
}

Value Value::dictKeyAt(std::size_t index) const {
    if (json_) {
        const auto &object = j_->get_ref<const Json::object_t &>();
        return borrowedString((object.begin() + static_cast<std::ptrdiff_t>(index))->first);
    }
    return d_->items[index].first;
}

Value Value::dictValueAt(std::size_t index) const {
    if (json_) {
        const auto &object = j_->get_ref<const Json::object_t &>();
        return fromJson((object.begin() + static_cast<std::ptrdiff_t>(index))->second);
    }
    return d_->items[index].second;
}

bool Value::dictFind(std::string_view key, Value &out) const {
    if (json_) {
        for (const auto &[k, v] : j_->get_ref<const Json::object_t &>()) {
            if (k == key) {
                out = fromJson(v);
                return true;
            }
        }
        return false;
    }
    if (const Value *found = d_->find(key)) {
        out = *found;
        return true;
    }
    return false;
}

bool Value::dictFind(const Value &key, Value &out) const {
    if (key.isString()) {
        return dictFind(key.asString(), out);
    }
    if (json_) {
        return false; // JSON objects have string keys only
    }
    if (const Value *found = d_->find(key)) {
        out = *found;
        return true;
    }
    return false;
}

std::string Value::undefinedMessage() const {
    const std::string name = s_ != nullptr ? *s_ : std::string();
    switch (undefined_reason_) {
    case UndefinedReason::Name:
        return s_ != nullptr ? "'" + name + "' is undefined" : "value is undefined";
    case UndefinedReason::Attribute:
        if (owner_type_ == nullptr) {
            return "'None' has no attribute '" + name + "'";
        }
        return std::string("'") + owner_type_ + " object' has no attribute '" + name + "'";
    case UndefinedReason::Unsafe:
        return "access to attribute '" + name + "' of '" + (owner_type_ ? owner_type_ : "") +
               "' object is unsafe.";
    case UndefinedReason::Message:
        return name;
    }
    return "value is undefined";
}

bool Value::truthy() const {
    switch (kind_) {
    case ValueKind::Undefined:
    case ValueKind::None:
        return false;
    case ValueKind::Bool:
        return b_;
    case ValueKind::Int:
        return i_ != 0;
    case ValueKind::Float:
        return f_ != 0.0;
    case ValueKind::String:
        return !s_->empty();
    case ValueKind::List:
        return listSize() != 0;
    case ValueKind::Dict:
        return dictSize() != 0;
    case ValueKind::Iterator:
    case ValueKind::Object:
        return true;
    }
    return false;
}

bool Value::identical(const Value &other) const {
    if (kind_ != other.kind_) {
        return false;
    }
    switch (kind_) {
    case ValueKind::Undefined:
        return false;
    case ValueKind::None:
        return true;
    case ValueKind::Bool:
        return b_ == other.b_;
    case ValueKind::Int: // CPython keeps one object for each small integer
        return i_ == other.i_ && i_ >= -5 && i_ <= 256;
    case ValueKind::Float:
        return false;
    case ValueKind::String:
        return s_ == other.s_;
    default:
        return identity() == other.identity() && (json_ ? j_ == other.j_ : true);
    }
}

const char *pythonTypeName(const Value &v) {
    switch (v.kind()) {
    case ValueKind::Undefined:
        return "Undefined";
    case ValueKind::None:
        return "NoneType";
    case ValueKind::Bool:
        return "bool";
    case ValueKind::Int:
        return "int";
    case ValueKind::Float:
        return "float";
    case ValueKind::String:
        return "str";
    case ValueKind::List:
        switch (v.flavor()) {
        case ListFlavor::Tuple:
        case ListFlavor::Group:
            return "tuple";
        case ListFlavor::Range:
            return "range";
        case ListFlavor::DictItems:
            return "dict_items";
        case ListFlavor::DictKeys:
            return "dict_keys";
        case ListFlavor::DictValues:
            return "dict_values";
        case ListFlavor::List:
            return "list";
        }
        return "list";
    case ValueKind::Dict:
        return "dict";
    case ValueKind::Iterator:
        return v.iteratorState()->type_name;
    case ValueKind::Object:
        return v.asObject()->typeName();
    }
    return "object";
}

namespace {

bool isTupleLike(const Value &v) {
    return v.flavor() == ListFlavor::Tuple || v.flavor() == ListFlavor::Group;
}

void checkValueDepth(int depth) {
    if (depth > kMaxValueDepth) {
        throw TemplateError("maximum recursion depth exceeded", 0);
    }
}

} // namespace

bool valuesEqual(const Value &a, const Value &b, int depth) {
    checkValueDepth(depth);
    if (a.isNumber() && b.isNumber()) {
        if (a.isFloat() || b.isFloat()) {
            return a.asDouble() == b.asDouble();
        }
        return a.asInt() == b.asInt();
    }
    if (a.kind() != b.kind()) {
        return false;
    }
    switch (a.kind()) {
    case ValueKind::Undefined:
    case ValueKind::None:
        return true;
    case ValueKind::String:
        return a.asString() == b.asString();
    case ValueKind::List: {
        if (isTupleLike(a) != isTupleLike(b)) {
            return false;
        }
        const std::size_t n = a.listSize();
        if (n != b.listSize()) {
            return false;
        }
        for (std::size_t i = 0; i < n; ++i) {
            if (!valuesEqual(a.listAt(i), b.listAt(i), depth + 1)) {
                return false;
            }
        }
        return true;
    }
    case ValueKind::Dict: {
        const std::size_t n = a.dictSize();
        if (n != b.dictSize()) {
            return false;
        }
        Value other;
        for (std::size_t i = 0; i < n; ++i) {
            if (!b.dictFind(a.dictKeyAt(i), other) ||
                !valuesEqual(a.dictValueAt(i), other, depth + 1)) {
                return false;
            }
        }
        return true;
    }
    default:
        return a.identity() == b.identity() && (a.json_ ? a.j_ == b.j_ : true);
    }
}

int compareValues(const Value &a, const Value &b, int depth) {
    checkValueDepth(depth);
    if (a.isNumber() && b.isNumber()) {
        if (a.isFloat() || b.isFloat()) {
            const double x = a.asDouble(), y = b.asDouble();
            return x < y ? -1 : (y < x ? 1 : 0);
        }
        const std::int64_t x = a.asInt(), y = b.asInt();
        return x < y ? -1 : (y < x ? 1 : 0);
    }
    if (a.isString() && b.isString()) {
        const int c = a.asString().compare(b.asString());
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    if (a.isList() && b.isList() && isTupleLike(a) == isTupleLike(b) &&
        a.flavor() != ListFlavor::Range && b.flavor() != ListFlavor::Range) {
        const std::size_t n = std::min(a.listSize(), b.listSize());
        for (std::size_t i = 0; i < n; ++i) {
            const Value x = a.listAt(i), y = b.listAt(i);
            if (!valuesEqual(x, y, depth + 1)) {
                return compareValues(x, y, depth + 1);
            }
        }
        const std::size_t na = a.listSize(), nb = b.listSize();
        return na < nb ? -1 : (na > nb ? 1 : 0);
    }
    throw TemplateError(std::string("'<' not supported between instances of '") +
                            pythonTypeName(a) + "' and '" + pythonTypeName(b) + "'",
                        0);
}

bool isHashable(const Value &v) {
    switch (v.kind()) {
    case ValueKind::List:
        if (!isTupleLike(v)) {
            return false;
        }
        for (std::size_t i = 0; i < v.listSize(); ++i) {
            if (!isHashable(v.listAt(i))) {
                return false;
            }
        }
        return true;
    case ValueKind::Dict:
        return false;
    default:
        return true;
    }
}

std::size_t hashValue(const Value &v) {
    switch (v.kind()) {
    case ValueKind::Bool:
    case ValueKind::Int:
        return std::hash<std::int64_t>()(v.asInt());
    case ValueKind::Float: {
        const double d = v.asDouble();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) {
            return std::hash<std::int64_t>()(static_cast<std::int64_t>(d));
        }
        return std::hash<double>()(d);
    }
    case ValueKind::String:
        return std::hash<std::string_view>()(v.asString());
    case ValueKind::List: {
        std::size_t h = 0x345678;
        for (std::size_t i = 0; i < v.listSize(); ++i) {
            h = h * 1000003 ^ hashValue(v.listAt(i));
        }
        return h;
    }
    case ValueKind::Undefined:
    case ValueKind::None:
        return static_cast<std::size_t>(v.kind());
    default:
        return std::hash<const void *>()(v.identity());
    }
}

void bindArguments(const char *callee, const CallArgs &args,
                   std::initializer_list<std::string_view> names, Value *out) {
    if (args.positional.size() > names.size()) {
        throw TemplateError(std::string(callee) + "() takes at most " +
                                std::to_string(names.size()) + " argument(s) (" +
                                std::to_string(args.positional.size()) + " given)",
                            0);
    }
    for (std::size_t i = 0; i < args.positional.size(); ++i) {
        out[i] = args.positional[i];
    }
    for (const auto &[key, value] : args.keywords) {
        std::size_t index = 0;
        for (const std::string_view name : names) {
            if (name == key) {
                break;
            }
            ++index;
        }
        if (index == names.size()) {
            throw TemplateError(
                std::string(callee) + "() got an unexpected keyword argument '" + key + "'", 0);
        }
        if (index < args.positional.size()) {
            throw TemplateError(
                std::string(callee) + "() got multiple values for argument '" + key + "'", 0);
        }
        out[index] = value;
    }
}

} // namespace headroom::chat::jinja
