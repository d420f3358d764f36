#pragma once

// The objects templates see besides plain data: namespace(), macros and callers, the `loop`
// variable, builtin functions, bound methods, cycler() and joiner().

#include "chat/jinja/renderer.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace headroom::chat::jinja::detail {

class NamespaceObject : public Object {
public:
    const char *typeName() const override { return "Namespace"; }
    void repr(std::string &out, int depth) const override;
    Value attribute(std::string_view name) const override;
    bool setAttribute(std::string_view name, Value value) override;
    void releaseReferences() override { attributes_.clear(); }

private:
    std::vector<std::pair<std::string, Value>> attributes_;
};

class MacroObject : public Object {
public:
    MacroObject(std::shared_ptr<const MacroDef> macro, std::shared_ptr<Scope> closure)
        : macro_(std::move(macro)), closure_(std::move(closure)) {}
    const char *typeName() const override { return "Macro"; }
    void repr(std::string &out, int depth) const override;
    Value attribute(std::string_view name) const override;
    bool isCallable() const override { return true; }
    Value call(Renderer &renderer, CallArgs &args) const override;
    void releaseReferences() override { closure_.reset(); }

private:
    std::shared_ptr<const MacroDef> macro_;
    std::shared_ptr<Scope> closure_;
};

// jinja2's LoopContext: one per loop, advanced by the loop as it iterates.
class LoopObject : public Object, public std::enable_shared_from_this<LoopObject> {
public:
    LoopObject(const ForStmt &loop, std::shared_ptr<const ValueList> items, int depth)
        : loop_(loop), items_(std::move(items)), depth_(depth) {}
    const char *typeName() const override { return "LoopContext"; }
    void repr(std::string &out, int depth) const override;
    Value attribute(std::string_view name) const override;
    bool isCallable() const override { return loop_.recursive; }
    Value call(Renderer &renderer, CallArgs &args) const override;
    void releaseReferences() override {
        last_changed_.clear();
        items_.reset();
    }

    std::size_t index0 = 0;
    // loop.cycle(...) and loop.changed(...).
    Value callMethod(std::string_view name, const CallArgs &args) const;

private:
    std::size_t length() const { return items_ ? items_->size() : 0; }

    const ForStmt &loop_;
    std::shared_ptr<const ValueList> items_;
    int depth_;
    mutable ValueList last_changed_;
    mutable bool changed_called_ = false;
};

using BuiltinCall = Value (*)(Renderer &renderer, CallArgs &args);

class BuiltinFunction : public Object {
public:
    BuiltinFunction(const char *name, BuiltinCall function) : name_(name), function_(function) {}
    const char *typeName() const override { return "builtin_function_or_method"; }
    void repr(std::string &out, int depth) const override;
    bool isCallable() const override { return true; }
    Value call(Renderer &renderer, CallArgs &args) const override {
        return function_(renderer, args);
    }

private:
    const char *name_;
    BuiltinCall function_;
};

// `obj.method` read without calling it right away.
class BoundMethod : public Object {
public:
    BoundMethod(Value self, std::string name) : self_(std::move(self)), name_(std::move(name)) {}
    const char *typeName() const override { return "builtin_function_or_method"; }
    void repr(std::string &out, int depth) const override;
    bool isCallable() const override { return true; }
    Value call(Renderer &renderer, CallArgs &args) const override;
    void releaseReferences() override { self_ = Value(); }

private:
    Value self_;
    std::string name_;
};

} // namespace headroom::chat::jinja::detail
