// jinja2 folds constant subexpressions before compiling (its "optimizer"). Two consequences show
// in what a template does: a branch folding removes is never compiled, so an unknown filter
// there is no error; and a slice of a constant goes through jinja2's forgiving getitem.

#include "chat/jinja/parser_internal.h"
#include "chat/jinja/renderer.h"

namespace headroom::chat::jinja::detail {

namespace {

bool foldCompare(const CompareExpr &expr, Value &out) {
    Value left;
    if (!foldConstant(*expr.first, left)) {
        return false;
    }
    for (const auto &[op, operand] : expr.rest) {
        Value right;
        if (!foldConstant(*operand, right)) {
            return false;
        }
        bool result = false;
        switch (op) {
        case CompareOp::Eq:
            result = valuesEqual(left, right);
            break;
        case CompareOp::Ne:
            result = !valuesEqual(left, right);
            break;
        case CompareOp::In:
        case CompareOp::NotIn:
            return false;
        default: {
            if (!left.isNumber() || !right.isNumber()) {
                if (!(left.isString() && right.isString())) {
                    return false;
                }
            }
            const int c = compareValues(left, right);
            result = op == CompareOp::Lt     ? c < 0
                     : op == CompareOp::LtEq ? c <= 0
                     : op == CompareOp::Gt   ? c > 0
                                             : c >= 0;
        }
        }
        if (!result) {
            out = Value::boolean(false); // the operands after this one are never looked at
            return true;
        }
        left = std::move(right);
    }
    out = Value::boolean(true);
    return true;
}

} // namespace

bool foldConstant(const Expr &expr, Value &out) {
    switch (expr.kind) {
    case ExprKind::Const:
        out = static_cast<const ConstExpr &>(expr).value;
        return true;
    case ExprKind::List:
    case ExprKind::Tuple: {
        ValueList items;
        for (const ExprPtr &item : static_cast<const SequenceExpr &>(expr).items) {
            Value value;
            if (!foldConstant(*item, value)) {
                return false;
            }
            items.push_back(std::move(value));
        }
        out = Value::list(std::move(items),
                          expr.kind == ExprKind::List ? ListFlavor::List : ListFlavor::Tuple);
        return true;
    }
    case ExprKind::Dict: {
        auto data = std::make_shared<DictData>();
        for (const auto &[key_expr, value_expr] : static_cast<const DictExpr &>(expr).items) {
            Value key, value;
            if (!foldConstant(*key_expr, key) || !isHashable(key) ||
                !foldConstant(*value_expr, value)) {
                return false;
            }
            data->set(std::move(key), std::move(value));
        }
        out = Value::dict(std::move(data));
        return true;
    }
    case ExprKind::Not: {
        Value operand;
        if (!foldConstant(*static_cast<const UnaryExpr &>(expr).operand, operand)) {
            return false;
        }
        out = Value::boolean(!operand.truthy());
        return true;
    }
    case ExprKind::And:
    case ExprKind::Or: {
        const auto &node = static_cast<const BinaryExpr &>(expr);
        Value left;
        if (!foldConstant(*node.left, left)) {
            return false;
        }
        if (left.truthy() == (expr.kind == ExprKind::Or)) {
            out = std::move(left);
            return true;
        }
        return foldConstant(*node.right, out);
    }
    case ExprKind::Compare:
        return foldCompare(static_cast<const CompareExpr &>(expr), out);
    default:
        return false;
    }
}

} // namespace headroom::chat::jinja::detail

namespace headroom::chat::jinja::detail {

namespace {

bool isConstantArgs(const ArgumentExprs &args);

// An expression jinja2 can evaluate while compiling: no variables, no calls, no filters that
// need the render context.
bool isConstantTree(const Expr &expr) {
    switch (expr.kind) {
    case ExprKind::Const:
        return true;
    case ExprKind::Name:
    case ExprKind::Call:
        return false;
    case ExprKind::List:
    case ExprKind::Tuple:
        for (const ExprPtr &item : static_cast<const SequenceExpr &>(expr).items) {
            if (!isConstantTree(*item)) {
                return false;
            }
        }
        return true;
    case ExprKind::Dict:
        for (const auto &[key, value] : static_cast<const DictExpr &>(expr).items) {
            if (!isConstantTree(*key) || !isConstantTree(*value)) {
                return false;
            }
        }
        return true;
    case ExprKind::Getattr:
        return isConstantTree(*static_cast<const GetattrExpr &>(expr).object);
    case ExprKind::Getitem: {
        const auto &node = static_cast<const GetitemExpr &>(expr);
        return isConstantTree(*node.object) && isConstantTree(*node.index);
    }
    case ExprKind::Slice: {
        const auto &node = static_cast<const SliceExpr &>(expr);
        for (const ExprPtr *part : {&node.start, &node.stop, &node.step}) {
            if (*part && !isConstantTree(**part)) {
                return false;
            }
        }
        return true;
    }
    case ExprKind::Filter:
    case ExprKind::Test: {
        const auto &node = static_cast<const FilterExpr &>(expr);
        static const char *const kContextFilters[] = {"map", "select", "reject", "selectattr",
                                                      "rejectattr"};
        for (const char *name : kContextFilters) {
            if (expr.kind == ExprKind::Filter && node.name == name) {
                return false;
            }
        }
        return node.function >= 0 && node.operand && isConstantTree(*node.operand) &&
               isConstantArgs(node.args);
    }
    case ExprKind::Neg:
    case ExprKind::Pos:
    case ExprKind::Not:
        return isConstantTree(*static_cast<const UnaryExpr &>(expr).operand);
    case ExprKind::Binary:
    case ExprKind::And:
    case ExprKind::Or: {
        const auto &node = static_cast<const BinaryExpr &>(expr);
        return isConstantTree(*node.left) && isConstantTree(*node.right);
    }
    case ExprKind::Concat:
        for (const ExprPtr &part : static_cast<const ConcatExpr &>(expr).parts) {
            if (!isConstantTree(*part)) {
                return false;
            }
        }
        return true;
    case ExprKind::Compare: {
        const auto &node = static_cast<const CompareExpr &>(expr);
        for (const auto &operand : node.rest) {
            if (!isConstantTree(*operand.second)) {
                return false;
            }
        }
        return isConstantTree(*node.first);
    }
    case ExprKind::CondExpr: {
        const auto &node = static_cast<const CondExpr &>(expr);
        return node.else_value && isConstantTree(*node.test) && isConstantTree(*node.then_value) &&
               isConstantTree(*node.else_value);
    }
    }
    return false;
}

bool isConstantArgs(const ArgumentExprs &args) {
    for (const ExprPtr &arg : args.positional) {
        if (!isConstantTree(*arg)) {
            return false;
        }
    }
    for (const auto &keyword : args.keywords) {
        if (!isConstantTree(*keyword.second)) {
            return false;
        }
    }
    return !args.star_args && !args.star_kwargs;
}

// Calls `visit` on each direct child expression of `expr`.
template <class F> void forEachChild(Expr &expr, F visit) {
    switch (expr.kind) {
    case ExprKind::List:
    case ExprKind::Tuple:
        for (ExprPtr &item : static_cast<SequenceExpr &>(expr).items) {
            visit(*item);
        }
        return;
    case ExprKind::Dict:
        for (auto &[key, value] : static_cast<DictExpr &>(expr).items) {
            visit(*key);
            visit(*value);
        }
        return;
    case ExprKind::Getattr:
        visit(*static_cast<GetattrExpr &>(expr).object);
        return;
    case ExprKind::Getitem:
        visit(*static_cast<GetitemExpr &>(expr).object);
        visit(*static_cast<GetitemExpr &>(expr).index);
        return;
    case ExprKind::Slice:
        for (ExprPtr *part :
             {&static_cast<SliceExpr &>(expr).start, &static_cast<SliceExpr &>(expr).stop,
              &static_cast<SliceExpr &>(expr).step}) {
            if (*part) {
                visit(**part);
            }
        }
        return;
    case ExprKind::Call: {
        auto &node = static_cast<CallExpr &>(expr);
        visit(*node.callee);
        for (ExprPtr &arg : node.args.positional) {
            visit(*arg);
        }
        for (auto &keyword : node.args.keywords) {
            visit(*keyword.second);
        }
        return;
    }
    case ExprKind::Filter:
    case ExprKind::Test: {
        auto &node = static_cast<FilterExpr &>(expr);
        if (node.operand) {
            visit(*node.operand);
        }
        for (ExprPtr &arg : node.args.positional) {
            visit(*arg);
        }
        for (auto &keyword : node.args.keywords) {
            visit(*keyword.second);
        }
        return;
    }
    case ExprKind::Neg:
    case ExprKind::Pos:
    case ExprKind::Not:
        visit(*static_cast<UnaryExpr &>(expr).operand);
        return;
    case ExprKind::Binary:
    case ExprKind::And:
    case ExprKind::Or:
        visit(*static_cast<BinaryExpr &>(expr).left);
        visit(*static_cast<BinaryExpr &>(expr).right);
        return;
    case ExprKind::Concat:
        for (ExprPtr &part : static_cast<ConcatExpr &>(expr).parts) {
            visit(*part);
        }
        return;
    case ExprKind::Compare:
        visit(*static_cast<CompareExpr &>(expr).first);
        for (auto &operand : static_cast<CompareExpr &>(expr).rest) {
            visit(*operand.second);
        }
        return;
    case ExprKind::CondExpr: {
        auto &node = static_cast<CondExpr &>(expr);
        visit(*node.test);
        visit(*node.then_value);
        if (node.else_value) {
            visit(*node.else_value);
        }
        return;
    }
    default:
        return;
    }
}

// Sets forgiving_slice on every slice in `expr`; returns whether there was one.
bool setSlicesForgiving(Expr &expr, bool forgiving) {
    bool found = false;
    if (expr.kind == ExprKind::Getitem) {
        auto &node = static_cast<GetitemExpr &>(expr);
        if (node.index->kind == ExprKind::Slice) {
            node.forgiving_slice = forgiving;
            found = true;
        }
    }
    forEachChild(expr, [&](Expr &child) { found = setSlicesForgiving(child, forgiving) || found; });
    return found;
}

// What jinja2 may keep as a folded constant (its has_safe_repr).
bool hasSafeRepr(const Value &v) {
    switch (v.kind()) {
    case ValueKind::None:
    case ValueKind::Bool:
    case ValueKind::Int:
    case ValueKind::Float:
    case ValueKind::String:
        return true;
    case ValueKind::List:
        for (std::size_t i = 0; i < v.listSize(); ++i) {
            if (!hasSafeRepr(v.listAt(i))) {
                return false;
            }
        }
        return true;
    case ValueKind::Dict:
        for (std::size_t i = 0; i < v.dictSize(); ++i) {
            if (!hasSafeRepr(v.dictKeyAt(i)) || !hasSafeRepr(v.dictValueAt(i))) {
                return false;
            }
        }
        return true;
    default:
        return false;
    }
}

// jinja2 evaluates a constant subtree while compiling: through its getitem (bad slices give
// undefined), keeping the result when it has a safe repr or is printed right away; otherwise
// the subtree is compiled as written and a bad slice fails when it runs.
void foldSlices(Expr &expr, bool printed) {
    if (!isConstantTree(expr)) {
        forEachChild(expr, [](Expr &child) { foldSlices(child, false); });
        return;
    }
    if (!setSlicesForgiving(expr, true)) {
        return;
    }
    bool folded = false;
    try {
        const TemplateAst no_names;
        const Json no_variables;
        RenderOptions options;
        options.limits.max_steps = 100000;
        options.limits.max_output_bytes = 1 << 20;
        Renderer renderer(no_names, no_variables, options);
        const Value value = renderer.evaluate(expr);
        folded = printed || hasSafeRepr(value);
    } catch (const TemplateError &) {
        folded = false;
    }
    if (!folded) {
        setSlicesForgiving(expr, false);
    }
}

} // namespace

void markConstantSlices(Expr &expr, bool printed) {
    foldSlices(expr, printed);
}

} // namespace headroom::chat::jinja::detail
