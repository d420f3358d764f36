#pragma once

// Renders a parsed template: scopes, statements, expressions, and the limits that stop a
// hostile template. One Renderer per render() call; nothing in it is shared between threads.

#include "chat/jinja/ast.h"
#include "chat/jinja/template.h"
#include "chat/jinja/value.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace headroom::chat::jinja::detail {

// A frame of variables: the template's top level, a loop iteration, a macro call, a with block.
struct Scope {
    std::vector<std::pair<int, Value>> vars;
    std::shared_ptr<Scope> parent;

    const Value *find(int slot) const;
    void set(int slot, Value value);
};

class LoopObject;

// A render limit was hit (steps, output size, recursion). Never turned into a lazy error.
class LimitError : public TemplateError {
public:
    using TemplateError::TemplateError;
};

// Recursion bound of the renderer (statements and expressions together).
constexpr int kMaxRenderDepth = 1500;
// Namespaces, loops and macro scopes alive at once (each a few hundred bytes at least).
constexpr std::size_t kMaxLiveObjects = 1'000'000;

class Renderer {
public:
    Renderer(const TemplateAst &ast, const Json &variables, const RenderOptions &options);
    ~Renderer();
    Renderer(const Renderer &) = delete;
    Renderer &operator=(const Renderer &) = delete;

    Rendered run();
    // One expression on its own (the parser folds constant expressions with it).
    Value evaluate(const Expr &expr) { return eval(expr); }

    // ---- for filters, tests, methods and callables ----
    [[noreturn]] void fail(const std::string &message) const;
    [[noreturn]] void failLimit(const std::string &message) const;
    // Counts work against max_steps; `bytes` of string data built count as bytes / 64 steps.
    void step(std::int64_t count = 1);
    void stepBytes(std::size_t bytes);
    // Fails when a string or list the template builds would pass max_output_bytes.
    void checkSize(std::size_t size) const;
    const RenderOptions &options() const { return options_; }

    Value getAttribute(const Value &object, std::string_view name);
    Value getItem(const Value &object, const Value &key);
    Value callValue(const Value &callee, CallArgs &args);
    Value callFilter(std::string_view name, Value operand, CallArgs &args);
    bool callTest(std::string_view name, const Value &operand, CallArgs &args);
    // The items of an iterable as Python's iter() yields them (consumes iterators); fails for
    // values that are not iterable. Undefined iterates as empty.
    ValueList iterate(const Value &value);
    // Makes a list or dict value, failing when nesting gets too deep to tear down safely.
    Value makeList(ValueList items, ListFlavor flavor = ListFlavor::List);
    Value makeDict(std::shared_ptr<DictData> data);
    Value makeIterator(ValueList items, const char *type_name = "generator");
    // Keeps a mutable object (namespace, loop, cycler) reachable until the render ends, so the
    // reference cycles templates can build through them are broken then.
    void track(std::shared_ptr<Object> object);
    void captureScope(const std::shared_ptr<Scope> &scope);

    // Macro and caller invocation (Macro objects call back here).
    Value callMacro(const MacroDef &macro, const std::shared_ptr<Scope> &closure, CallArgs &args);
    Value callLoop(const ForStmt &loop, const Value &iterable, int depth);

private:
    enum class Flow { Normal, Break, Continue };

    Flow renderBody(const Body &body);
    Flow renderStmt(const Stmt &stmt);
    Flow renderFor(const ForStmt &stmt, const Value &iterable, int depth);
    void renderGeneration(const ScopedBodyStmt &stmt);
    std::string capture(const Body &body, std::shared_ptr<Scope> scope);
    void assign(const Target &target, const Value &value, Scope &scope);
    void write(std::string_view text);
    void pruneTracked();
    std::shared_ptr<Scope> childScope(const std::shared_ptr<Scope> &parent);

    Value eval(const Expr &expr);
    Value evalName(const NameExpr &expr);
    Value evalBinary(const BinaryExpr &expr);
    Value evalCompare(const CompareExpr &expr);
    Value evalCall(const CallExpr &expr);
    Value evalFilter(const FilterExpr &expr, const Value *block_input);
    Value evalSlice(const Value &object, const SliceExpr &slice, bool forgiving);
    void evalArgs(const ArgumentExprs &exprs, CallArgs &args);
    Value applyFilterChain(const Expr *filter, Value input);

    // Bounds the renderer's recursion (statements and expressions) so it cannot overflow the stack.
    class DepthGuard {
    public:
        explicit DepthGuard(Renderer &renderer) : renderer_(renderer) {
            if (++renderer_.depth_ > kMaxRenderDepth) {
                --renderer_.depth_;
                renderer_.failLimit("template recursion too deep");
            }
        }
        ~DepthGuard() { --renderer_.depth_; }
        DepthGuard(const DepthGuard &) = delete;
        DepthGuard &operator=(const DepthGuard &) = delete;

    private:
        Renderer &renderer_;
    };

    const TemplateAst &ast_;
    const RenderOptions &options_;
    std::vector<Value> globals_; // by slot: the variables, then the builtin functions
    std::shared_ptr<Scope> top_;
    std::shared_ptr<Scope> scope_;
    std::string result_;
    std::string *out_ = &result_;
    std::vector<std::pair<std::size_t, std::size_t>> spans_;
    std::vector<std::shared_ptr<Object>> tracked_;
    std::vector<std::shared_ptr<Scope>> captured_scopes_; // scopes macros and callers close over
    std::size_t prune_at_ = 1024;
    std::int64_t steps_ = 0;
    int depth_ = 0;
    int call_depth_ = 0;
    int line_ = 0;
};

} // namespace headroom::chat::jinja::detail
