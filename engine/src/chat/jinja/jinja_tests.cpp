// jinja2's tests (`x is defined`, `x is divisibleby 3`, selectattr(..., 'equalto', ...)).

#include "chat/jinja/functions.h"
#include "chat/jinja/objects.h"
#include "chat/jinja/python_text.h"
#include "chat/jinja/renderer.h"
#include "chat/jinja/unicode_text.h"

#include <cmath>
#include <vector>

namespace headroom::chat::jinja::detail {

namespace {

using TestFunction = bool (*)(Renderer &renderer, const Value &value, const Value &other);

struct TestEntry {
    std::string_view name;
    TestFunction function;
    bool takes_argument;
};

// value % divisor == remainder with Python's modulo.
bool moduloIs(Renderer &r, const Value &value, const Value &divisor, std::int64_t remainder) {
    if (value.isUndefined()) {
        r.fail(value.undefinedMessage());
    }
    if (value.isString()) {
        percentFormat(value.asString(), divisor); // a str is never equal to the int remainder
        return false;
    }
    if (!value.isNumber() || !divisor.isNumber()) {
        r.fail(std::string("unsupported operand type(s) for %: '") + pythonTypeName(value) +
               "' and '" + pythonTypeName(divisor) + "'");
    }
    if (divisor.asDouble() == 0.0) {
        r.fail("integer division or modulo by zero");
    }
    if (value.isFloat() || divisor.isFloat()) {
        const double x = value.asDouble(), y = divisor.asDouble();
        double m = std::fmod(x, y);
        if (m != 0.0 && ((y < 0) != (m < 0))) {
            m += y;
        }
        return m == static_cast<double>(remainder);
    }
    const std::int64_t y = divisor.asInt();
    if (y == -1) {
        return remainder == 0;
    }
    std::int64_t m = value.asInt() % y;
    if (m != 0 && ((m < 0) != (y < 0))) {
        m += y;
    }
    return m == remainder;
}

bool ordered(Renderer &r, const Value &a, const Value &b, int want_sign, bool or_equal) {
    if (a.isUndefined() || b.isUndefined()) {
        r.fail((a.isUndefined() ? a : b).undefinedMessage());
    }
    int c = 0;
    if (a.isNumber() && b.isNumber() && (a.isFloat() || b.isFloat())) {
        const double x = a.asDouble(), y = b.asDouble();
        if (std::isnan(x) || std::isnan(y)) {
            return false;
        }
        c = x < y ? -1 : (x > y ? 1 : 0);
    } else {
        c = compareValues(a, b);
    }
    return c == want_sign || (or_equal && c == 0);
}

bool caseTest(const Value &value, bool upper) {
    const std::string s = value.isString() ? std::string(value.asString()) : toStr(value);
    bool any_cased = false;
    for (std::size_t pos = 0; pos < s.size();) {
        const char32_t c = text::decodeAt(s, pos);
        if (upper ? text::isLower(c) : text::isUpper(c)) {
            return false;
        }
        any_cased = any_cased || (upper ? text::isUpper(c) : text::isLower(c));
    }
    return any_cased;
}

bool isCallableValue(const Value &v) {
    // Undefined has __call__ (it fails when called), so Python's callable() says yes.
    return v.isUndefined() ||
           (v.isObject() && (v.asObject()->isCallable() || v.objectAs<LoopObject>() != nullptr));
}

const std::vector<TestEntry> &testTable() {
    static const std::vector<TestEntry> table = {
        {"odd",
         [](Renderer &r, const Value &v, const Value &) {
             return moduloIs(r, v, Value::integer(2), 1);
         },
         false},
        {"even",
         [](Renderer &r, const Value &v, const Value &) {
             return moduloIs(r, v, Value::integer(2), 0);
         },
         false},
        {"divisibleby",
         [](Renderer &r, const Value &v, const Value &n) { return moduloIs(r, v, n, 0); }, true},
        {"defined", [](Renderer &, const Value &v, const Value &) { return !v.isUndefined(); },
         false},
        {"undefined", [](Renderer &, const Value &v, const Value &) { return v.isUndefined(); },
         false},
        {"none", [](Renderer &, const Value &v, const Value &) { return v.isNone(); }, false},
        {"boolean", [](Renderer &, const Value &v, const Value &) { return v.isBool(); }, false},
        {"false",
         [](Renderer &, const Value &v, const Value &) { return v.isBool() && !v.asBool(); },
         false},
        {"true", [](Renderer &, const Value &v, const Value &) { return v.isBool() && v.asBool(); },
         false},
        {"integer", [](Renderer &, const Value &v, const Value &) { return v.isInt(); }, false},
        {"float", [](Renderer &, const Value &v, const Value &) { return v.isFloat(); }, false},
        {"number", [](Renderer &, const Value &v, const Value &) { return v.isNumber(); }, false},
        {"string", [](Renderer &, const Value &v, const Value &) { return v.isString(); }, false},
        {"mapping", [](Renderer &, const Value &v, const Value &) { return v.isDict(); }, false},
        {"lower", [](Renderer &, const Value &v, const Value &) { return caseTest(v, false); },
         false},
        {"upper", [](Renderer &, const Value &v, const Value &) { return caseTest(v, true); },
         false},
        {"sequence",
         [](Renderer &, const Value &v, const Value &) {
             // len() and __getitem__: str, list, tuple, dict, range, and Undefined.
             return v.isString() || v.isDict() || v.isUndefined() ||
                    (v.isList() && v.flavor() != ListFlavor::DictItems &&
                     v.flavor() != ListFlavor::DictKeys && v.flavor() != ListFlavor::DictValues);
         },
         false},
        {"iterable",
         [](Renderer &, const Value &v, const Value &) {
             return v.isString() || v.isList() || v.isDict() || v.isUndefined() ||
                    v.kind() == ValueKind::Iterator || v.objectAs<LoopObject>() != nullptr;
         },
         false},
        {"callable", [](Renderer &, const Value &v, const Value &) { return isCallableValue(v); },
         false},
        {"sameas", [](Renderer &, const Value &v, const Value &o) { return v.identical(o); }, true},
        {"escaped", [](Renderer &, const Value &, const Value &) { return false; }, false},
        {"filter",
         [](Renderer &, const Value &v, const Value &) {
             return v.isString() && findFilter(v.asString()) >= 0;
         },
         false},
        {"test",
         [](Renderer &, const Value &v, const Value &) {
             return v.isString() && findTest(v.asString()) >= 0;
         },
         false},
        {"in",
         [](Renderer &r, const Value &v, const Value &seq) {
             if (seq.isString()) {
                 if (!v.isString()) {
                     r.fail(std::string("'in <string>' requires string as left operand, not ") +
                            pythonTypeName(v));
                 }
                 return seq.asString().find(v.asString()) != std::string_view::npos;
             }
             if (seq.isDict()) {
                 Value ignored;
                 return isHashable(v) && seq.dictFind(v, ignored);
             }
             for (const Value &item : r.iterate(seq)) {
                 if (valuesEqual(item, v)) {
                     return true;
                 }
             }
             return false;
         },
         true},
        {"==", [](Renderer &, const Value &v, const Value &o) { return valuesEqual(v, o); }, true},
        {"eq", [](Renderer &, const Value &v, const Value &o) { return valuesEqual(v, o); }, true},
        {"equalto", [](Renderer &, const Value &v, const Value &o) { return valuesEqual(v, o); },
         true},
        {"!=", [](Renderer &, const Value &v, const Value &o) { return !valuesEqual(v, o); }, true},
        {"ne", [](Renderer &, const Value &v, const Value &o) { return !valuesEqual(v, o); }, true},
        {">",
         [](Renderer &r, const Value &v, const Value &o) { return ordered(r, v, o, 1, false); },
         true},
        {"gt",
         [](Renderer &r, const Value &v, const Value &o) { return ordered(r, v, o, 1, false); },
         true},
        {"greaterthan",
         [](Renderer &r, const Value &v, const Value &o) { return ordered(r, v, o, 1, false); },
         true},
        {">=",
         [](Renderer &r, const Value &v, const Value &o) { return ordered(r, v, o, 1, true); },
         true},
        {"ge",
         [](Renderer &r, const Value &v, const Value &o) { return ordered(r, v, o, 1, true); },
         true},
        {"<",
         [](Renderer &r, const Value &v, const Value &o) { return ordered(r, v, o, -1, false); },
         true},
        {"lt",
         [](Renderer &r, const Value &v, const Value &o) { return ordered(r, v, o, -1, false); },
         true},
        {"lessthan",
         [](Renderer &r, const Value &v, const Value &o) { return ordered(r, v, o, -1, false); },
         true},
        {"<=",
         [](Renderer &r, const Value &v, const Value &o) { return ordered(r, v, o, -1, true); },
         true},
        {"le",
         [](Renderer &r, const Value &v, const Value &o) { return ordered(r, v, o, -1, true); },
         true},
    };
    return table;
}

} // namespace

int findTest(std::string_view name) {
    const auto &table = testTable();
    for (std::size_t i = 0; i < table.size(); ++i) {
        if (table[i].name == name) {
            return static_cast<int>(i);
        }
    }
    return -1;
}

bool runTest(int index, Renderer &renderer, const Value &operand, CallArgs &args) {
    const TestEntry &entry = testTable()[static_cast<std::size_t>(index)];
    Value argument;
    if (entry.takes_argument) {
        const std::string name(entry.name);
        bindArguments(name.c_str(), args, {"other"}, &argument);
        if (args.positional.empty() && args.keywords.empty()) {
            renderer.fail(name + "() missing 1 required positional argument");
        }
    } else {
        bindArguments(std::string(entry.name).c_str(), args, {}, nullptr);
    }
    return entry.function(renderer, operand, argument);
}

} // namespace headroom::chat::jinja::detail
