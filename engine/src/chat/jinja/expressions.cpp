// The expression half of the renderer: names, operators with Python's semantics, attribute
// and item access as jinja2's sandbox does them, calls, filters and tests.

#include "chat/jinja/functions.h"
#include "chat/jinja/objects.h"
#include "chat/jinja/python_text.h"
#include "chat/jinja/renderer.h"
#include "chat/jinja/unicode_text.h"

#include <cmath>
#include <limits>

namespace headroom::chat::jinja::detail {

namespace {

[[noreturn]] void failOperands(Renderer &renderer, const char *op, const Value &a, const Value &b) {
    renderer.fail(std::string("unsupported operand type(s) for ") + op + ": '" + pythonTypeName(a) +
                  "' and '" + pythonTypeName(b) + "'");
}

bool isSequenceList(const Value &v) {
    return v.isList() && (v.flavor() == ListFlavor::List || v.flavor() == ListFlavor::Tuple);
}

// Python's float divmod: the floor quotient and the modulo with the divisor's sign.
std::pair<double, double> floatDivmod(double a, double b) {
    double mod = std::fmod(a, b);
    double div = (a - mod) / b;
    if (mod != 0.0) {
        if ((b < 0) != (mod < 0)) {
            mod += b;
            div -= 1.0;
        }
    } else {
        mod = std::copysign(0.0, b);
    }
    double floordiv = 0.0;
    if (div != 0.0) {
        floordiv = std::floor(div);
        if (div - floordiv > 0.5) {
            floordiv += 1.0;
        }
    } else {
        floordiv = std::copysign(0.0, a / b);
    }
    return {floordiv, mod};
}

} // namespace

Value Renderer::eval(const Expr &expr) {
    DepthGuard guard(*this);
    line_ = expr.line;
    switch (expr.kind) {
    case ExprKind::Const:
        return static_cast<const ConstExpr &>(expr).value;
    case ExprKind::Name:
        return evalName(static_cast<const NameExpr &>(expr));
    case ExprKind::List:
    case ExprKind::Tuple: {
        const auto &node = static_cast<const SequenceExpr &>(expr);
        ValueList items;
        items.reserve(node.items.size());
        for (const ExprPtr &item : node.items) {
            items.push_back(eval(*item));
        }
        return makeList(std::move(items),
                        expr.kind == ExprKind::List ? ListFlavor::List : ListFlavor::Tuple);
    }
    case ExprKind::Dict: {
        auto data = std::make_shared<DictData>();
        for (const auto &[key_expr, value_expr] : static_cast<const DictExpr &>(expr).items) {
            Value key = eval(*key_expr);
            if (!isHashable(key)) {
                fail(std::string("unhashable type: '") + pythonTypeName(key) + "'");
            }
            data->set(std::move(key), eval(*value_expr));
        }
        return makeDict(std::move(data));
    }
    case ExprKind::Getattr: {
        const auto &node = static_cast<const GetattrExpr &>(expr);
        return getAttribute(eval(*node.object), node.name);
    }
    case ExprKind::Getitem: {
        const auto &node = static_cast<const GetitemExpr &>(expr);
        const Value object = eval(*node.object);
        if (node.index->kind == ExprKind::Slice) {
            return evalSlice(object, static_cast<const SliceExpr &>(*node.index),
                             node.forgiving_slice);
        }
        return getItem(object, eval(*node.index));
    }
    case ExprKind::Slice:
        fail("a slice outside a subscript");
    case ExprKind::Call:
        return evalCall(static_cast<const CallExpr &>(expr));
    case ExprKind::Filter:
        return evalFilter(static_cast<const FilterExpr &>(expr), nullptr);
    case ExprKind::Test: {
        const auto &node = static_cast<const FilterExpr &>(expr);
        const Value operand = eval(*node.operand);
        CallArgs args;
        evalArgs(node.args, args);
        line_ = node.line;
        if (node.function < 0) {
            fail("No test named '" + node.name + "'.");
        }
        return Value::boolean(runTest(node.function, *this, operand, args));
    }
    case ExprKind::Neg:
    case ExprKind::Pos: {
        const Value operand = eval(*static_cast<const UnaryExpr &>(expr).operand);
        if (operand.isUndefined()) {
            fail(operand.undefinedMessage());
        }
        const bool negate = expr.kind == ExprKind::Neg;
        if (operand.isFloat()) {
            return Value::number(negate ? -operand.asDouble() : operand.asDouble());
        }
        if (operand.isInt() || operand.isBool()) {
            const std::int64_t i = operand.asInt();
            if (negate && i == std::numeric_limits<std::int64_t>::min()) {
                fail("integer overflow");
            }
            return Value::integer(negate ? -i : i);
        }
        fail(std::string("bad operand type for unary ") + (negate ? "-" : "+") + ": '" +
             pythonTypeName(operand) + "'");
    }
    case ExprKind::Not:
        return Value::boolean(!eval(*static_cast<const UnaryExpr &>(expr).operand).truthy());
    case ExprKind::Binary:
        return evalBinary(static_cast<const BinaryExpr &>(expr));
    case ExprKind::And:
    case ExprKind::Or: {
        const auto &node = static_cast<const BinaryExpr &>(expr);
        Value left = eval(*node.left);
        if (left.truthy() == (expr.kind == ExprKind::Or)) {
            return left;
        }
        return eval(*node.right);
    }
    case ExprKind::Concat: {
        std::string text;
        for (const ExprPtr &part : static_cast<const ConcatExpr &>(expr).parts) {
            appendStr(text, eval(*part));
            checkSize(text.size());
        }
        stepBytes(text.size());
        return Value::string(std::move(text));
    }
    case ExprKind::Compare:
        return evalCompare(static_cast<const CompareExpr &>(expr));
    case ExprKind::CondExpr: {
        const auto &node = static_cast<const CondExpr &>(expr);
        if (eval(*node.test).truthy()) {
            return eval(*node.then_value);
        }
        if (node.else_value) {
            return eval(*node.else_value);
        }
        return Value::undefinedMessage("the inline if-expression on line " +
                                       std::to_string(node.line) +
                                       " evaluated to false and no else section was defined.");
    }
    }
    fail("unknown expression");
}

Value Renderer::evalName(const NameExpr &expr) {
    for (const Scope *scope = scope_.get(); scope != nullptr; scope = scope->parent.get()) {
        if (const Value *value = scope->find(expr.slot)) {
            return *value;
        }
    }
    const Value &global = globals_[static_cast<std::size_t>(expr.slot)];
    if (global.isUndefined()) {
        return Value::undefinedName(expr.name);
    }
    return global;
}

Value Renderer::evalBinary(const BinaryExpr &expr) {
    const Value a = eval(*expr.left);
    const Value b = eval(*expr.right);
    line_ = expr.line;
    // Undefined fails every operator, except as the argument of str % (formatting reads it).
    const bool formatting = a.isString() && expr.op == BinaryOp::Mod;
    if (a.isUndefined() || (b.isUndefined() && !formatting)) {
        fail((a.isUndefined() ? a : b).undefinedMessage());
    }
    const bool numbers = a.isNumber() && b.isNumber();
    const bool floats = numbers && (a.isFloat() || b.isFloat());
    switch (expr.op) {
    case BinaryOp::Add:
        if (numbers) {
            std::int64_t sum = 0;
            if (floats) {
                return Value::number(a.asDouble() + b.asDouble());
            }
            if (__builtin_add_overflow(a.asInt(), b.asInt(), &sum)) {
                fail("integer overflow");
            }
            return Value::integer(sum);
        }
        if (a.isString() && b.isString()) {
            checkSize(a.asString().size() + b.asString().size());
            stepBytes(a.asString().size() + b.asString().size());
            std::string text;
            text.reserve(a.asString().size() + b.asString().size());
            text.append(a.asString()).append(b.asString());
            return Value::string(std::move(text));
        }
        if (isSequenceList(a) && isSequenceList(b) && a.flavor() == b.flavor()) {
            ValueList items = iterate(a);
            for (Value &item : iterate(b)) {
                items.push_back(std::move(item));
            }
            step(static_cast<std::int64_t>(items.size()));
            return makeList(std::move(items), a.flavor());
        }
        failOperands(*this, "+", a, b);
    case BinaryOp::Sub:
        if (numbers) {
            std::int64_t difference = 0;
            if (floats) {
                return Value::number(a.asDouble() - b.asDouble());
            }
            if (__builtin_sub_overflow(a.asInt(), b.asInt(), &difference)) {
                fail("integer overflow");
            }
            return Value::integer(difference);
        }
        failOperands(*this, "-", a, b);
    case BinaryOp::Mul: {
        if (numbers) {
            std::int64_t product = 0;
            if (floats) {
                return Value::number(a.asDouble() * b.asDouble());
            }
            if (__builtin_mul_overflow(a.asInt(), b.asInt(), &product)) {
                fail("integer overflow");
            }
            return Value::integer(product);
        }
        const Value &sequence = a.isNumber() ? b : a;
        const Value &count = a.isNumber() ? a : b;
        if ((count.isInt() || count.isBool()) &&
            (sequence.isString() || isSequenceList(sequence))) {
            const std::size_t unit =
                sequence.isString() ? sequence.asString().size() : sequence.listSize();
            const std::int64_t times = unit == 0 ? 0 : std::max<std::int64_t>(count.asInt(), 0);
            if (unit != 0 &&
                static_cast<std::uint64_t>(times) > options_.limits.max_output_bytes / unit) {
                checkSize(options_.limits.max_output_bytes + 1);
            }
            const std::size_t total = unit * static_cast<std::size_t>(times);
            stepBytes(sequence.isString() ? total : total * 64);
            if (sequence.isString()) {
                std::string text;
                text.reserve(total);
                for (std::int64_t i = 0; i < times; ++i) {
                    text.append(sequence.asString());
                }
                return Value::string(std::move(text));
            }
            const ValueList once = iterate(sequence);
            ValueList items;
            items.reserve(total);
            for (std::int64_t i = 0; i < times; ++i) {
                items.insert(items.end(), once.begin(), once.end());
            }
            return makeList(std::move(items), sequence.flavor());
        }
        failOperands(*this, "*", a, b);
    }
    case BinaryOp::Div:
        if (numbers) {
            if (b.asDouble() == 0.0) {
                fail("division by zero");
            }
            return Value::number(a.asDouble() / b.asDouble());
        }
        failOperands(*this, "/", a, b);
    case BinaryOp::FloorDiv:
    case BinaryOp::Mod:
        if (a.isString() && expr.op == BinaryOp::Mod) {
            std::string text = percentFormat(a.asString(), b);
            checkSize(text.size());
            stepBytes(text.size());
            return Value::string(std::move(text));
        }
        if (numbers) {
            const bool floor = expr.op == BinaryOp::FloorDiv;
            if (b.asDouble() == 0.0) {
                fail(floor ? "integer division or modulo by zero" : "modulo by zero");
            }
            if (floats) {
                const auto [quotient, remainder] = floatDivmod(a.asDouble(), b.asDouble());
                return Value::number(floor ? quotient : remainder);
            }
            const std::int64_t x = a.asInt(), y = b.asInt();
            if (x == std::numeric_limits<std::int64_t>::min() && y == -1) {
                if (floor) {
                    fail("integer overflow");
                }
                return Value::integer(0);
            }
            std::int64_t quotient = x / y;
            std::int64_t remainder = x % y;
            if (remainder != 0 && ((remainder < 0) != (y < 0))) {
                quotient -= 1;
                remainder += y;
            }
            return Value::integer(floor ? quotient : remainder);
        }
        failOperands(*this, expr.op == BinaryOp::Mod ? "%" : "//", a, b);
    case BinaryOp::Pow:
        if (numbers) {
            if (!floats && b.asInt() >= 0) {
                std::int64_t result = 1, base = a.asInt();
                for (std::int64_t e = b.asInt(); e > 0; e >>= 1) {
                    if ((e & 1) != 0 && __builtin_mul_overflow(result, base, &result)) {
                        fail("integer overflow");
                    }
                    if (e > 1 && __builtin_mul_overflow(base, base, &base)) {
                        fail("integer overflow");
                    }
                }
                return Value::integer(result);
            }
            if (a.asDouble() == 0.0 && b.asDouble() < 0) {
                fail("0.0 cannot be raised to a negative power");
            }
            const double result = std::pow(a.asDouble(), b.asDouble());
            if (std::isnan(result) && !std::isnan(a.asDouble()) && !std::isnan(b.asDouble())) {
                fail("math domain error"); // Python gives a complex number here
            }
            if (std::isinf(result) && std::isfinite(a.asDouble()) && std::isfinite(b.asDouble())) {
                fail("(34, 'Numerical result out of range')");
            }
            return Value::number(result);
        }
        failOperands(*this, "** or pow()", a, b);
    }
    fail("unknown operator");
}

Value Renderer::evalCompare(const CompareExpr &expr) {
    Value left = eval(*expr.first);
    for (const auto &[op, right_expr] : expr.rest) {
        Value right = eval(*right_expr);
        line_ = expr.line;
        bool result = false;
        switch (op) {
        case CompareOp::Eq:
            result = valuesEqual(left, right);
            break;
        case CompareOp::Ne:
            result = !valuesEqual(left, right);
            break;
        case CompareOp::In:
        case CompareOp::NotIn: {
            bool found = false;
            if (right.isString()) {
                if (!left.isString()) {
                    fail(std::string("'in <string>' requires string as left operand, not ") +
                         pythonTypeName(left));
                }
                found = right.asString().find(left.asString()) != std::string_view::npos;
                stepBytes(right.asString().size());
            } else if (right.isDict()) {
                if (!isHashable(left)) {
                    fail(std::string("unhashable type: '") + pythonTypeName(left) + "'");
                }
                Value ignored;
                found = right.dictFind(left, ignored);
                step(static_cast<std::int64_t>(right.dictSize()));
            } else if (right.isList() || right.isUndefined() ||
                       right.kind() == ValueKind::Iterator) {
                if (right.isList() && right.json() == nullptr && right.listData() != nullptr) {
                    const ValueList &items = right.listData()->items;
                    step(static_cast<std::int64_t>(items.size()));
                    for (const Value &item : items) {
                        if (valuesEqual(item, left)) {
                            found = true;
                            break;
                        }
                    }
                } else {
                    const ValueList items = iterate(right);
                    for (const Value &item : items) {
                        if (valuesEqual(item, left)) {
                            found = true;
                            break;
                        }
                    }
                }
            } else {
                fail(std::string("argument of type '") + pythonTypeName(right) +
                     "' is not iterable");
            }
            result = (op == CompareOp::In) == found;
            break;
        }
        default: {
            if (left.isUndefined() || right.isUndefined()) {
                fail((left.isUndefined() ? left : right).undefinedMessage());
            }
            if (left.isNumber() && right.isNumber() && (left.isFloat() || right.isFloat())) {
                const double x = left.asDouble(), y = right.asDouble();
                result = op == CompareOp::Lt     ? x < y
                         : op == CompareOp::LtEq ? x <= y
                         : op == CompareOp::Gt   ? x > y
                                                 : x >= y;
                break;
            }
            const int c = compareValues(left, right);
            result = op == CompareOp::Lt     ? c < 0
                     : op == CompareOp::LtEq ? c <= 0
                     : op == CompareOp::Gt   ? c > 0
                                             : c >= 0;
        }
        }
        if (!result) {
            return Value::boolean(false);
        }
        left = std::move(right);
    }
    return Value::boolean(true);
}

void Renderer::evalArgs(const ArgumentExprs &exprs, CallArgs &args) {
    args.positional.reserve(exprs.positional.size());
    for (const ExprPtr &arg : exprs.positional) {
        args.positional.push_back(eval(*arg));
    }
    if (exprs.star_args) {
        for (Value &arg : iterate(eval(*exprs.star_args))) {
            args.positional.push_back(std::move(arg));
        }
    }
    for (const auto &[name, arg] : exprs.keywords) {
        args.keywords.emplace_back(name, eval(*arg));
    }
    if (exprs.star_kwargs) {
        const Value kwargs = eval(*exprs.star_kwargs);
        if (!kwargs.isDict()) {
            fail(std::string("argument after ** must be a mapping, not ") + pythonTypeName(kwargs));
        }
        for (std::size_t i = 0; i < kwargs.dictSize(); ++i) {
            const Value key = kwargs.dictKeyAt(i);
            if (!key.isString()) {
                fail("keywords must be strings");
            }
            args.keywords.emplace_back(std::string(key.asString()), kwargs.dictValueAt(i));
        }
    }
}

Value Renderer::evalCall(const CallExpr &expr) {
    if (expr.callee->kind == ExprKind::Getattr) {
        // obj.method(...) on a string, list or dict calls the method without binding it first.
        const auto &getattr = static_cast<const GetattrExpr &>(*expr.callee);
        const Value object = eval(*getattr.object);
        const MethodKind method = findMethod(object, getattr.name);
        if (method == MethodKind::Safe) {
            CallArgs args;
            evalArgs(expr.args, args);
            line_ = expr.line;
            step();
            return callMethod(*this, object, getattr.name, args);
        }
        const Value callee = getAttribute(object, getattr.name);
        CallArgs args;
        evalArgs(expr.args, args);
        line_ = expr.line;
        return callValue(callee, args);
    }
    const Value callee = eval(*expr.callee);
    CallArgs args;
    evalArgs(expr.args, args);
    line_ = expr.line;
    return callValue(callee, args);
}

Value Renderer::callValue(const Value &callee, CallArgs &args) {
    if (callee.isObject() && callee.asObject()->isCallable()) {
        step();
        return callee.asObject()->call(*this, args);
    }
    if (callee.isUndefined()) {
        fail(callee.undefinedMessage());
    }
    fail(std::string("'") + pythonTypeName(callee) + "' object is not callable");
}

Value Renderer::evalFilter(const FilterExpr &expr, const Value *block_input) {
    Value operand;
    if (expr.operand) {
        operand = block_input != nullptr && expr.operand->kind == ExprKind::Filter
                      ? evalFilter(static_cast<const FilterExpr &>(*expr.operand), block_input)
                      : eval(*expr.operand);
    } else if (block_input != nullptr) {
        operand = *block_input;
    }
    CallArgs args;
    evalArgs(expr.args, args);
    line_ = expr.line;
    if (expr.function < 0) {
        fail("No filter named '" + expr.name + "'.");
    }
    step();
    return runFilter(expr.function, *this, operand, args);
}

Value Renderer::applyFilterChain(const Expr *filter, Value input) {
    return evalFilter(static_cast<const FilterExpr &>(*filter), &input);
}

Value Renderer::callFilter(std::string_view name, Value operand, CallArgs &args) {
    const int index = findFilter(name);
    if (index < 0) {
        fail("No filter named '" + std::string(name) + "'.");
    }
    step();
    return runFilter(index, *this, operand, args);
}

bool Renderer::callTest(std::string_view name, const Value &operand, CallArgs &args) {
    const int index = findTest(name);
    if (index < 0) {
        fail("No test named '" + std::string(name) + "'.");
    }
    step();
    return runTest(index, *this, operand, args);
}

} // namespace headroom::chat::jinja::detail
