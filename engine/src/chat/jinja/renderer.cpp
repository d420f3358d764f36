// The statement half of the renderer: output, scopes, loops, macros and the render limits.

#include "chat/jinja/renderer.h"

#include "chat/jinja/functions.h"
#include "chat/jinja/objects.h"
#include "chat/jinja/python_text.h"

#include <algorithm>
#include <new>

namespace headroom::chat::jinja::detail {

const Value *Scope::find(int slot) const {
    for (const auto &[s, value] : vars) {
        if (s == slot) {
            return &value;
        }
    }
    return nullptr;
}

void Scope::set(int slot, Value value) {
    for (auto &[s, existing] : vars) {
        if (s == slot) {
            existing = std::move(value);
            return;
        }
    }
    vars.emplace_back(slot, std::move(value));
}

Renderer::Renderer(const TemplateAst &ast, const Json &variables, const RenderOptions &options)
    : ast_(ast), options_(options), top_(std::make_shared<Scope>()), scope_(top_) {
    globals_.resize(ast.names.size());
    for (std::size_t slot = 0; slot < ast.names.size(); ++slot) {
        const std::string &name = ast.names[slot];
        const auto found = variables.is_object() ? variables.find(name) : variables.end();
        if (found != variables.end()) {
            globals_[slot] = Value::fromJson(*found);
        } else {
            globals_[slot] = builtinGlobal(name);
        }
    }
}

Renderer::~Renderer() {
    // Values never outlive the render; what the template linked into cycles is unlinked here.
    for (const auto &object : tracked_) {
        object->releaseReferences();
    }
    for (const auto &scope : captured_scopes_) {
        scope->vars.clear();
        scope->parent.reset();
    }
    top_->vars.clear();
}

Rendered Renderer::run() {
    try {
        renderBody(ast_.body);
    } catch (const TemplateError &error) {
        if (error.line() == 0) {
            throw TemplateError(error.what(), line_, error.raisedByTemplate());
        }
        throw;
    } catch (const std::bad_alloc &) {
        throw TemplateError("out of memory while rendering the template", line_);
    } catch (const std::length_error &) {
        throw TemplateError("out of memory while rendering the template", line_);
    } catch (const nlohmann::json::exception &error) {
        throw TemplateError(error.what(), line_);
    }
    return Rendered{std::move(result_), std::move(spans_)};
}

void Renderer::fail(const std::string &message) const {
    throw TemplateError(message, line_);
}

void Renderer::failLimit(const std::string &message) const {
    throw LimitError(message, line_);
}

void Renderer::step(std::int64_t count) {
    steps_ += count;
    if (steps_ > options_.limits.max_steps) {
        failLimit("the template ran past its step limit (" +
                  std::to_string(options_.limits.max_steps) + ")");
    }
}

void Renderer::stepBytes(std::size_t bytes) {
    step(1 + static_cast<std::int64_t>(bytes / 64));
}

void Renderer::checkSize(std::size_t size) const {
    if (size > options_.limits.max_output_bytes) {
        failLimit("the template's output ran past its size limit (" +
                  std::to_string(options_.limits.max_output_bytes) + " bytes)");
    }
}

void Renderer::track(std::shared_ptr<Object> object) {
    if (tracked_.size() + captured_scopes_.size() >= prune_at_) {
        pruneTracked();
    }
    tracked_.push_back(std::move(object));
}

void Renderer::captureScope(const std::shared_ptr<Scope> &scope) {
    if (tracked_.size() + captured_scopes_.size() >= prune_at_) {
        pruneTracked();
    }
    captured_scopes_.push_back(scope);
}

// Drops what only the tracking lists still hold (nothing can reach it any more), so a loop
// that makes objects does not keep them all; what is left counts against a bound.
void Renderer::pruneTracked() {
    const auto unreachable = [](const auto &p) {
        return p.use_count() == 1;
    };
    tracked_.erase(std::remove_if(tracked_.begin(), tracked_.end(), unreachable), tracked_.end());
    captured_scopes_.erase(
        std::remove_if(captured_scopes_.begin(), captured_scopes_.end(), unreachable),
        captured_scopes_.end());
    const std::size_t live = tracked_.size() + captured_scopes_.size();
    if (live > kMaxLiveObjects) {
        failLimit("the template keeps too many namespaces, loops and macros alive");
    }
    prune_at_ = std::max<std::size_t>(1024, 2 * live);
}

void Renderer::write(std::string_view text) {
    stepBytes(text.size());
    checkSize(out_->size() + text.size());
    out_->append(text);
}

std::shared_ptr<Scope> Renderer::childScope(const std::shared_ptr<Scope> &parent) {
    auto scope = std::make_shared<Scope>();
    scope->parent = parent;
    return scope;
}

std::string Renderer::capture(const Body &body, std::shared_ptr<Scope> scope) {
    std::string buffer;
    std::string *const saved_out = out_;
    std::shared_ptr<Scope> saved_scope = scope_;
    out_ = &buffer;
    if (scope) {
        scope_ = std::move(scope);
    }
    try {
        renderBody(body);
    } catch (...) {
        out_ = saved_out;
        scope_ = std::move(saved_scope);
        throw;
    }
    out_ = saved_out;
    scope_ = std::move(saved_scope);
    return buffer;
}

Renderer::Flow Renderer::renderBody(const Body &body) {
    for (const StmtPtr &stmt : body) {
        const Flow flow = renderStmt(*stmt);
        if (flow != Flow::Normal) {
            return flow;
        }
    }
    return Flow::Normal;
}

void Renderer::assign(const Target &target, const Value &value, Scope &scope) {
    switch (target.kind) {
    case Target::Kind::Name:
        scope.set(target.slot, value);
        return;
    case Target::Kind::NamespaceAttribute: {
        const Value *found = nullptr;
        for (const Scope *s = scope_.get(); s != nullptr && found == nullptr; s = s->parent.get()) {
            found = s->find(target.slot);
        }
        const Value ns =
            found != nullptr ? *found : globals_[static_cast<std::size_t>(target.slot)];
        if (!ns.isObject() || !ns.asObject()->setAttribute(target.attribute, value)) {
            fail("cannot assign attribute on non-namespace object");
        }
        return;
    }
    case Target::Kind::Tuple: {
        const ValueList items = iterate(value);
        if (items.size() < target.items.size()) {
            fail("not enough values to unpack (expected " + std::to_string(target.items.size()) +
                 ", got " + std::to_string(items.size()) + ")");
        }
        if (items.size() > target.items.size()) {
            fail("too many values to unpack (expected " + std::to_string(target.items.size()) +
                 ")");
        }
        for (std::size_t i = 0; i < items.size(); ++i) {
            assign(target.items[i], items[i], scope);
        }
        return;
    }
    }
}

Renderer::Flow Renderer::renderStmt(const Stmt &stmt) {
    DepthGuard guard(*this);
    line_ = stmt.line;
    switch (stmt.kind) {
    case StmtKind::Text:
        write(static_cast<const TextStmt &>(stmt).text);
        return Flow::Normal;
    case StmtKind::Print: {
        const Value value = eval(*static_cast<const PrintStmt &>(stmt).expr);
        line_ = stmt.line;
        if (value.isString()) {
            write(value.asString());
        } else if (!value.isUndefined()) {
            write(toStr(value));
        }
        return Flow::Normal;
    }
    case StmtKind::If: {
        const auto &node = static_cast<const IfStmt &>(stmt);
        for (const auto &[test, body] : node.branches) {
            if (eval(*test).truthy()) {
                return renderBody(body);
            }
        }
        return renderBody(node.else_body);
    }
    case StmtKind::For: {
        const auto &node = static_cast<const ForStmt &>(stmt);
        return renderFor(node, eval(*node.iterable), 1);
    }
    case StmtKind::Set: {
        const auto &node = static_cast<const SetStmt &>(stmt);
        assign(node.target, eval(*node.value), *scope_);
        return Flow::Normal;
    }
    case StmtKind::SetBlock: {
        const auto &node = static_cast<const SetBlockStmt &>(stmt);
        // The body is a frame of its own: what it sets stays inside.
        Value text = Value::string(capture(node.body, childScope(scope_)));
        if (node.filter) {
            text = applyFilterChain(node.filter.get(), std::move(text));
        }
        assign(node.target, text, *scope_);
        return Flow::Normal;
    }
    case StmtKind::Macro: {
        const auto &node = static_cast<const MacroStmt &>(stmt);
        captureScope(scope_);
        scope_->set(node.slot, Value::object(std::make_shared<MacroObject>(node.macro, scope_)));
        return Flow::Normal;
    }
    case StmtKind::CallBlock: {
        const auto &node = static_cast<const CallBlockStmt &>(stmt);
        const auto &call = static_cast<const CallExpr &>(*node.call);
        captureScope(scope_);
        CallArgs args;
        evalArgs(call.args, args);
        args.keywords.emplace_back(
            "caller", Value::object(std::make_shared<MacroObject>(node.caller, scope_)));
        const Value callee = eval(*call.callee);
        const Value result = callValue(callee, args);
        line_ = stmt.line;
        write(toStr(result));
        return Flow::Normal;
    }
    case StmtKind::FilterBlock: {
        const auto &node = static_cast<const FilterBlockStmt &>(stmt);
        const Value text = Value::string(capture(node.body, childScope(scope_)));
        write(toStr(applyFilterChain(node.filter.get(), text)));
        return Flow::Normal;
    }
    case StmtKind::With: {
        const auto &node = static_cast<const WithStmt &>(stmt);
        auto scope = childScope(scope_);
        for (std::size_t i = 0; i < node.targets.size(); ++i) {
            assign(node.targets[i], eval(*node.values[i]), *scope);
        }
        std::shared_ptr<Scope> saved = scope_;
        scope_ = std::move(scope);
        Flow flow = Flow::Normal;
        try {
            flow = renderBody(node.body);
        } catch (...) {
            scope_ = std::move(saved);
            throw;
        }
        scope_ = std::move(saved);
        return flow;
    }
    case StmtKind::Break:
        return Flow::Break;
    case StmtKind::Continue:
        return Flow::Continue;
    case StmtKind::Generation:
        renderGeneration(static_cast<const ScopedBodyStmt &>(stmt));
        return Flow::Normal;
    case StmtKind::Block: {
        const auto &node = static_cast<const ScopedBodyStmt &>(stmt);
        write(capture(node.body, childScope(node.scoped ? scope_ : top_)));
        return Flow::Normal;
    }
    }
    return Flow::Normal;
}

// transformers' {% generation %} renders its body through a caller (a scope of its own) and
// records where the text lands in the output.
void Renderer::renderGeneration(const ScopedBodyStmt &stmt) {
    ++call_depth_;
    if (call_depth_ > options_.limits.max_call_depth) {
        --call_depth_;
        failLimit("maximum macro call depth exceeded");
    }
    std::string text;
    try {
        text = capture(stmt.body, childScope(scope_));
    } catch (...) {
        --call_depth_;
        throw;
    }
    --call_depth_;
    // Like transformers: the span starts where the top-level output is so far, even when the
    // block runs inside a macro, call or filter block whose text is not written out yet.
    const std::size_t begin = result_.size();
    spans_.emplace_back(begin, begin + text.size());
    write(text);
}

Renderer::Flow Renderer::renderFor(const ForStmt &stmt, const Value &iterable, int depth) {
    ValueList items = iterate(iterable);
    if (stmt.condition) {
        // The condition sees the loop variable (not `loop`) in a scope of its own.
        auto test_scope = childScope(scope_);
        std::shared_ptr<Scope> saved = scope_;
        ValueList kept;
        try {
            for (Value &item : items) {
                step();
                test_scope->vars.clear();
                assign(stmt.target, item, *test_scope);
                scope_ = test_scope;
                const bool keep = eval(*stmt.condition).truthy();
                scope_ = saved;
                if (keep) {
                    kept.push_back(std::move(item));
                }
            }
        } catch (...) {
            scope_ = std::move(saved);
            throw;
        }
        items = std::move(kept);
    }
    // jinja2 runs the else block unless an iteration reached the end of the body: a loop whose
    // every iteration ends in {% continue %} or {% break %} runs it too.
    bool reached_end = false;
    std::shared_ptr<Scope> saved = scope_;
    try {
        if (!items.empty()) {
            const auto shared_items = std::make_shared<const ValueList>(std::move(items));
            auto loop = std::make_shared<LoopObject>(stmt, shared_items, depth);
            track(loop);
            const Value loop_value = Value::object(loop);
            std::shared_ptr<Scope> iteration;
            for (std::size_t i = 0; i < shared_items->size(); ++i) {
                step();
                loop->index0 = i;
                // A new scope per iteration: what the body sets does not carry over (jinja2
                // resets loop-local names each iteration). Reused when no macro captured it.
                if (!iteration || iteration.use_count() > 1) {
                    iteration = childScope(saved);
                } else {
                    iteration->vars.clear();
                }
                assign(stmt.target, (*shared_items)[i], *iteration);
                iteration->set(stmt.loop_slot, loop_value);
                scope_ = iteration;
                const Flow flow = renderBody(stmt.body);
                scope_ = saved;
                if (flow == Flow::Break) {
                    break;
                }
                reached_end = reached_end || flow == Flow::Normal;
            }
        }
        Flow flow = Flow::Normal;
        if (!reached_end && !stmt.else_body.empty()) {
            scope_ = childScope(saved);
            flow = renderBody(stmt.else_body);
        }
        scope_ = std::move(saved);
        return flow;
    } catch (...) {
        scope_ = std::move(saved);
        throw;
    }
}

Value Renderer::callLoop(const ForStmt &loop, const Value &iterable, int depth) {
    ++call_depth_;
    if (call_depth_ > options_.limits.max_call_depth) {
        --call_depth_;
        failLimit("maximum macro call depth exceeded");
    }
    std::string buffer;
    std::string *const saved_out = out_;
    out_ = &buffer;
    try {
        renderFor(loop, iterable, depth);
    } catch (...) {
        out_ = saved_out;
        --call_depth_;
        throw;
    }
    out_ = saved_out;
    --call_depth_;
    return Value::string(std::move(buffer));
}

Value Renderer::callMacro(const MacroDef &macro, const std::shared_ptr<Scope> &closure,
                          CallArgs &args) {
    step();
    ++call_depth_;
    struct CallDepth {
        int &depth;
        ~CallDepth() { --depth; }
    } call_depth{call_depth_};
    if (call_depth_ > options_.limits.max_call_depth) {
        failLimit("maximum macro call depth exceeded (" +
                  std::to_string(options_.limits.max_call_depth) + ")");
    }
    auto scope = childScope(closure);
    const std::size_t count = macro.params.size();
    const std::size_t given = std::min(args.positional.size(), count);
    std::vector<bool> bound(count, false);
    for (std::size_t i = 0; i < given; ++i) {
        scope->set(macro.param_slots[i], args.positional[i]);
        bound[i] = true;
    }
    auto caller = Value::undefinedMessage("No caller defined");
    auto kwargs = std::make_shared<DictData>();
    for (auto &[key, value] : args.keywords) {
        const auto it = std::find(macro.params.begin(), macro.params.end(), key);
        const auto index = static_cast<std::size_t>(it - macro.params.begin());
        if (it != macro.params.end() && !bound[index]) {
            scope->set(macro.param_slots[index], value);
            bound[index] = true;
        } else if (it != macro.params.end()) {
            fail("macro '" + macro.name + "' got multiple values for argument '" + key + "'");
        } else if (key == "caller" && macro.uses_caller) {
            caller = value;
        } else if (macro.uses_kwargs) {
            kwargs->set(Value::string(key), value);
        } else if (key == "caller") {
            fail("macro '" + macro.name +
                 "' was invoked with two values for the special caller argument. This is most "
                 "likely a bug.");
        } else {
            fail("macro '" + macro.name + "' takes no keyword argument '" + key + "'");
        }
    }
    if (args.positional.size() > count && !macro.uses_varargs) {
        fail("macro '" + macro.name + "' takes not more than " + std::to_string(count) +
             " argument(s)");
    }
    if (macro.uses_caller) {
        scope->set(macro.caller_slot, caller);
    }
    if (macro.uses_kwargs) {
        scope->set(macro.kwargs_slot, makeDict(kwargs));
    }
    if (macro.uses_varargs) {
        ValueList extra;
        for (std::size_t i = count; i < args.positional.size(); ++i) {
            extra.push_back(args.positional[i]);
        }
        scope->set(macro.varargs_slot, makeList(std::move(extra), ListFlavor::Tuple));
    }
    // Defaults are evaluated in the macro's scope, after the arguments before them are bound.
    const std::size_t first_default = count - macro.defaults.size();
    std::shared_ptr<Scope> saved = scope_;
    scope_ = scope;
    std::string text;
    try {
        for (std::size_t i = 0; i < count; ++i) {
            if (bound[i]) {
                continue;
            }
            if (i >= first_default) {
                scope->set(macro.param_slots[i], eval(*macro.defaults[i - first_default]));
            } else {
                scope->set(macro.param_slots[i],
                           Value::undefinedMessage("parameter '" + macro.params[i] +
                                                   "' was not provided"));
            }
        }
        text = capture(macro.body, scope);
    } catch (...) {
        scope_ = std::move(saved);
        throw;
    }
    scope_ = std::move(saved);
    return Value::string(std::move(text));
}

Value Renderer::makeList(ValueList items, ListFlavor flavor) {
    checkSize(items.size());
    return Value::list(std::move(items), flavor);
}

Value Renderer::makeDict(std::shared_ptr<DictData> data) {
    return Value::dict(std::move(data));
}

Value Renderer::makeIterator(ValueList items, const char *type_name) {
    return Value::iterator(std::move(items), type_name);
}

} // namespace headroom::chat::jinja::detail
