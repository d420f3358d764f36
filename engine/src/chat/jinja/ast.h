#pragma once

// The parsed template: expression and statement nodes. Names are interned to slots so the
// renderer finds variables by number; filters and tests are resolved to table indexes.

#include "chat/jinja/value.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace headroom::chat::jinja::detail {

enum class ExprKind : std::uint8_t {
    Const,
    Name,
    List,
    Tuple,
    Dict,
    Getattr,
    Getitem,
    Slice,
    Call,
    Filter,
    Test,
    Neg,
    Pos,
    Not,
    Binary,
    And,
    Or,
    Concat,
    Compare,
    CondExpr,
};

struct Expr {
    Expr(ExprKind k, int l) : kind(k), line(l) {}
    virtual ~Expr() = default;
    ExprKind kind;
    int line;
    int depth = 1; // height of this node's tree (the parser bounds it)
};
using ExprPtr = std::unique_ptr<Expr>;

struct ConstExpr : Expr {
    ConstExpr(int l, Value v) : Expr(ExprKind::Const, l), value(std::move(v)) {}
    Value value;
};

struct NameExpr : Expr {
    NameExpr(int l, std::string n, int s) : Expr(ExprKind::Name, l), name(std::move(n)), slot(s) {}
    std::string name;
    int slot;
};

// List and tuple literals.
struct SequenceExpr : Expr {
    using Expr::Expr;
    std::vector<ExprPtr> items;
};

struct DictExpr : Expr {
    explicit DictExpr(int l) : Expr(ExprKind::Dict, l) {}
    std::vector<std::pair<ExprPtr, ExprPtr>> items;
};

struct GetattrExpr : Expr {
    GetattrExpr(int l, ExprPtr o, std::string n)
        : Expr(ExprKind::Getattr, l), object(std::move(o)), name(std::move(n)) {}
    ExprPtr object;
    std::string name;
};

struct GetitemExpr : Expr {
    GetitemExpr(int l, ExprPtr o, ExprPtr i)
        : Expr(ExprKind::Getitem, l), object(std::move(o)), index(std::move(i)) {}
    ExprPtr object;
    ExprPtr index;
    // A slice in a {{ }} of constants only: jinja2 evaluates that through its forgiving getitem
    // when it compiles the template, so a bad slice prints as undefined instead of failing.
    bool forgiving_slice = false;
};

// Only as a GetitemExpr's index: [start:stop:step], each part optional.
struct SliceExpr : Expr {
    explicit SliceExpr(int l) : Expr(ExprKind::Slice, l) {}
    ExprPtr start, stop, step;
};

struct ArgumentExprs {
    std::vector<ExprPtr> positional;
    std::vector<std::pair<std::string, ExprPtr>> keywords;
    ExprPtr star_args;   // *args
    ExprPtr star_kwargs; // **kwargs
};

struct CallExpr : Expr {
    explicit CallExpr(int l) : Expr(ExprKind::Call, l) {}
    ExprPtr callee;
    ArgumentExprs args;
};

// A filter (`x|name(args)`) or a test (`x is name(args)`). A filter of a {% filter %} or
// {% set %} block has no operand: the block's output takes its place.
struct FilterExpr : Expr {
    using Expr::Expr;
    ExprPtr operand;
    std::string name;
    int function = -1; // index in the filter or test table; -1: unknown (fails when used)
    ArgumentExprs args;
};

struct UnaryExpr : Expr {
    UnaryExpr(ExprKind k, int l, ExprPtr o) : Expr(k, l), operand(std::move(o)) {}
    ExprPtr operand;
};

enum class BinaryOp : std::uint8_t { Add, Sub, Mul, Div, FloorDiv, Mod, Pow };

// Arithmetic (kind Binary, with `op`) and the short-circuit And / Or.
struct BinaryExpr : Expr {
    BinaryExpr(ExprKind k, int l, BinaryOp o, ExprPtr a, ExprPtr b)
        : Expr(k, l), op(o), left(std::move(a)), right(std::move(b)) {}
    BinaryOp op;
    ExprPtr left, right;
};

struct ConcatExpr : Expr {
    explicit ConcatExpr(int l) : Expr(ExprKind::Concat, l) {}
    std::vector<ExprPtr> parts;
};

enum class CompareOp : std::uint8_t { Eq, Ne, Lt, LtEq, Gt, GtEq, In, NotIn };

struct CompareExpr : Expr {
    explicit CompareExpr(int l) : Expr(ExprKind::Compare, l) {}
    ExprPtr first;
    std::vector<std::pair<CompareOp, ExprPtr>> rest;
};

struct CondExpr : Expr {
    explicit CondExpr(int l) : Expr(ExprKind::CondExpr, l) {}
    ExprPtr test, then_value, else_value; // else_value may be null
};

// ---- statements ----

enum class StmtKind : std::uint8_t {
    Text,
    Print,
    If,
    For,
    Set,
    SetBlock,
    Macro,
    CallBlock,
    FilterBlock,
    With,
    Break,
    Continue,
    Generation,
    Block,
};

struct Stmt {
    Stmt(StmtKind k, int l) : kind(k), line(l) {}
    virtual ~Stmt() = default;
    StmtKind kind;
    int line;
};
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

// What {% set %}, {% for %} and {% with %} assign to.
struct Target {
    enum class Kind : std::uint8_t { Name, Tuple, NamespaceAttribute } kind = Kind::Name;
    std::string name; // the variable, or the namespace's variable
    int slot = -1;
    std::string attribute;
    std::vector<Target> items;
};

struct TextStmt : Stmt {
    TextStmt(int l, std::string t) : Stmt(StmtKind::Text, l), text(std::move(t)) {}
    std::string text;
};

struct PrintStmt : Stmt {
    PrintStmt(int l, ExprPtr e) : Stmt(StmtKind::Print, l), expr(std::move(e)) {}
    ExprPtr expr;
};

struct IfStmt : Stmt {
    explicit IfStmt(int l) : Stmt(StmtKind::If, l) {}
    std::vector<std::pair<ExprPtr, Body>> branches; // if, elif...
    Body else_body;
};

struct ForStmt : Stmt {
    explicit ForStmt(int l) : Stmt(StmtKind::For, l) {}
    Target target;
    ExprPtr iterable;
    ExprPtr condition; // {% for x in xs if condition %}
    Body body;
    Body else_body;
    bool recursive = false;
    int loop_slot = -1;
};

struct SetStmt : Stmt {
    explicit SetStmt(int l) : Stmt(StmtKind::Set, l) {}
    Target target;
    ExprPtr value;
};

struct SetBlockStmt : Stmt {
    explicit SetBlockStmt(int l) : Stmt(StmtKind::SetBlock, l) {}
    Target target;
    ExprPtr filter; // optional filter chain applied to the captured text
    Body body;
};

// A macro, or the caller of a {% call %} block.
struct MacroDef {
    std::string name;
    std::vector<std::string> params;
    std::vector<int> param_slots;
    std::vector<ExprPtr> defaults; // for the last defaults.size() parameters
    Body body;
    bool uses_caller = false, uses_varargs = false, uses_kwargs = false;
    int caller_slot = -1, varargs_slot = -1, kwargs_slot = -1;
};

struct MacroStmt : Stmt {
    explicit MacroStmt(int l) : Stmt(StmtKind::Macro, l) {}
    std::shared_ptr<MacroDef> macro;
    int slot = -1;
};

struct CallBlockStmt : Stmt {
    explicit CallBlockStmt(int l) : Stmt(StmtKind::CallBlock, l) {}
    std::shared_ptr<MacroDef> caller;
    ExprPtr call; // a CallExpr
};

struct FilterBlockStmt : Stmt {
    explicit FilterBlockStmt(int l) : Stmt(StmtKind::FilterBlock, l) {}
    ExprPtr filter;
    Body body;
};

struct WithStmt : Stmt {
    explicit WithStmt(int l) : Stmt(StmtKind::With, l) {}
    std::vector<Target> targets;
    std::vector<ExprPtr> values;
    Body body;
};

// {% generation %}, {% block %}: a body rendered in a scope of its own.
struct ScopedBodyStmt : Stmt {
    using Stmt::Stmt;
    Body body;
    bool scoped = true; // a {% block %} sees the enclosing variables only when `scoped`
};

struct TemplateAst {
    Body body;
    std::vector<std::string> names; // slot -> name
    bool has_generation = false;
};

} // namespace headroom::chat::jinja::detail
