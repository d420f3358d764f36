#pragma once

// The values a template computes with, with Python's semantics (jinja2 runs on Python objects).
// A Value is small and cheap to copy: data that came in as the render's variables stays in the
// nlohmann JSON tree and is only pointed to; data the template builds is shared and immutable
// (the sandbox forbids modifying lists and dicts), except namespaces and loop state.

#include "chat/jinja/template.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace headroom::chat::jinja {

using Json = nlohmann::ordered_json;

class Value;
using ValueList = std::vector<Value>;

namespace detail {
class Renderer;
}

enum class ValueKind : std::uint8_t {
    Undefined,
    None,
    Bool,
    Int,
    Float,
    String,
    List, // list, tuple, range and dict views (see ListFlavor)
    Dict,
    Iterator, // a generator or iterator: truthy, no len(), consumed by iterating
    Object,   // namespace, macro, function, bound method, loop, cycler, joiner
};

enum class ListFlavor : std::uint8_t { List, Tuple, Range, DictItems, DictKeys, DictValues, Group };

// Why a value is undefined: picks the message of the error raised when it is used.
enum class UndefinedReason : std::uint8_t {
    Name,      // 'x' is undefined
    Attribute, // 'dict object' has no attribute 'x'
    Unsafe,    // access to attribute 'append' of 'list' object is unsafe.
    Message,   // a message of its own
};

struct CallArgs;

struct ListData {
    ValueList items;
    int depth = 1; // nesting of lists, dicts and iterators inside (bounded: see kMaxValueDepth)
    std::int64_t range_start = 0, range_stop = 0, range_step = 1;
};

struct DictData {
    std::vector<std::pair<Value, Value>> items;
    int depth = 1;
    const Value *find(std::string_view key) const;
    const Value *find(const Value &key) const;
    void set(Value key, Value value);
};

struct IteratorState {
    ValueList items;
    int depth = 1;
    // Set when the generator would raise once iterated (Python runs generator bodies lazily).
    std::string error;
    std::size_t position = 0;
    const char *type_name = "generator";
};

// Objects with attributes or a call: namespaces, macros, functions, methods, loops.
class Object {
public:
    virtual ~Object() = default;
    virtual const char *typeName() const = 0;
    // Python's repr(); `depth` bounds the nesting of values printed inside.
    virtual void repr(std::string &out, int depth) const;
    virtual Value attribute(std::string_view name) const;
    virtual bool isCallable() const { return false; }
    virtual Value call(detail::Renderer &renderer, CallArgs &args) const;
    // Namespaces accept attribute assignment; nothing else does.
    virtual bool setAttribute(std::string_view name, Value value);
    // Drops the values this object holds (at the end of a render, to break reference cycles).
    virtual void releaseReferences() {}
};

class Value {
public:
    Value() = default; // undefined
    static Value none() { return Value(ValueKind::None); }
    static Value boolean(bool b);
    static Value integer(std::int64_t i);
    static Value number(double f);
    static Value string(std::string s);
    // A string that lives elsewhere (in the JSON variables or the template) for the whole render.
    static Value borrowedString(const std::string &s);
    static Value list(ValueList items, ListFlavor flavor = ListFlavor::List);
    static Value list(std::shared_ptr<ListData> data, ListFlavor flavor);
    static Value dict(std::shared_ptr<DictData> data);
    static Value iterator(ValueList items, const char *type_name = "generator");
    static Value object(std::shared_ptr<Object> object);
    static Value fromJson(const Json &json);
    static Value undefined(UndefinedReason reason, const std::string *name,
                           std::shared_ptr<std::string> owned = nullptr,
                           const char *owner_type = nullptr);
    static Value undefinedName(const std::string &name);
    static Value undefinedMessage(std::string message);

    ValueKind kind() const { return kind_; }
    bool isUndefined() const { return kind_ == ValueKind::Undefined; }
    bool isNone() const { return kind_ == ValueKind::None; }
    bool isString() const { return kind_ == ValueKind::String; }
    bool isInt() const { return kind_ == ValueKind::Int; }
    bool isBool() const { return kind_ == ValueKind::Bool; }
    bool isFloat() const { return kind_ == ValueKind::Float; }
    bool isNumber() const {
        return kind_ == ValueKind::Int || kind_ == ValueKind::Float || kind_ == ValueKind::Bool;
    }
    bool isList() const { return kind_ == ValueKind::List; }
    bool isDict() const { return kind_ == ValueKind::Dict; }
    bool isObject() const { return kind_ == ValueKind::Object; }
    ListFlavor flavor() const { return flavor_; }

    bool asBool() const { return b_; }
    std::int64_t asInt() const { return kind_ == ValueKind::Bool ? (b_ ? 1 : 0) : i_; }
    double asDouble() const;
    std::string_view asString() const { return *s_; }
    const std::string &stringRef() const { return *s_; }
    Object *asObject() const { return static_cast<Object *>(hold_.get()); }
    template <class T> T *objectAs() const { return dynamic_cast<T *>(asObject()); }
    IteratorState *iteratorState() const { return static_cast<IteratorState *>(hold_.get()); }
    const ListData *listData() const { return json_ ? nullptr : l_; }
    const DictData *dictData() const { return json_ ? nullptr : d_; }
    const Json *json() const { return json_ ? j_ : nullptr; }

    // Lists (any flavor).
    std::size_t listSize() const;
    Value listAt(std::size_t index) const;
    // Dicts: entries by position, and lookup.
    std::size_t dictSize() const;
    Value dictKeyAt(std::size_t index) const;
    Value dictValueAt(std::size_t index) const;
    bool dictFind(std::string_view key, Value &out) const;
    bool dictFind(const Value &key, Value &out) const;

    // Undefined values: the error raised when one is used.
    std::string undefinedMessage() const;
    bool undefinedIsUnsafe() const { return undefined_reason_ == UndefinedReason::Unsafe; }

    // Python truthiness, ==, ordering (throws for unorderable types), hashability and hash.
    bool truthy() const;
    bool identical(const Value &other) const; // Python `is`, as far as it can be told
    const void *identity() const { return hold_ ? hold_.get() : static_cast<const void *>(j_); }

private:
    explicit Value(ValueKind kind) : kind_(kind) {}

    ValueKind kind_ = ValueKind::Undefined;
    ListFlavor flavor_ = ListFlavor::List;
    UndefinedReason undefined_reason_ = UndefinedReason::Name;
    bool json_ = false;
    union {
        bool b_;
        std::int64_t i_ = 0;
        double f_;
        const std::string *s_;
        const Json *j_;
        const ListData *l_;
        const DictData *d_;
    };
    // Owns strings, list and dict data, iterators and objects the template made; undefined
    // values keep their owner's type name here (a static string, no ownership).
    std::shared_ptr<void> hold_;
    const char *owner_type_ = nullptr;

    friend bool valuesEqual(const Value &a, const Value &b, int depth);
};

bool valuesEqual(const Value &a, const Value &b, int depth = 0);
// -1, 0 or 1 as Python's < and == order them; throws TemplateError when Python raises TypeError.
int compareValues(const Value &a, const Value &b, int depth = 0);
bool isHashable(const Value &v);
std::size_t hashValue(const Value &v);

// The name of a value's Python type ("str", "dict", "NoneType", ...), for messages.
const char *pythonTypeName(const Value &v);

struct CallArgs {
    ValueList positional;
    std::vector<std::pair<std::string, Value>> keywords;
};

// Binds `args` to the parameters `names` the way Python binds a call: by position, then by
// keyword. Parameters not given stay undefined. Throws for extra or unknown arguments.
void bindArguments(const char *callee, const CallArgs &args,
                   std::initializer_list<std::string_view> names, Value *out);

// Limits nesting when walking values (repr, JSON, equality) so deep data fails cleanly, and
// the nesting of lists and dicts a template builds, which are torn down recursively.
constexpr int kMaxValueDepth = 400;

} // namespace headroom::chat::jinja
