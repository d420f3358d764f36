#include "chat/jinja/objects.h"

#include "chat/jinja/functions.h"
#include "chat/jinja/python_text.h"

#include <ctime>

namespace headroom::chat::jinja::detail {

void NamespaceObject::repr(std::string &out, int depth) const {
    out += "<Namespace {";
    bool first = true;
    for (const auto &[name, value] : attributes_) {
        if (!first) {
            out += ", ";
        }
        first = false;
        appendStringRepr(out, name);
        out += ": ";
        appendRepr(out, value, depth + 1);
    }
    out += "}>";
}

Value NamespaceObject::attribute(std::string_view name) const {
    for (const auto &[key, value] : attributes_) {
        if (key == name) {
            return value;
        }
    }
    return Object::attribute(name);
}

bool NamespaceObject::setAttribute(std::string_view name, Value value) {
    for (auto &[key, existing] : attributes_) {
        if (key == name) {
            existing = std::move(value);
            return true;
        }
    }
    attributes_.emplace_back(std::string(name), std::move(value));
    return true;
}

void MacroObject::repr(std::string &out, int) const {
    out += "<Macro ";
    appendStringRepr(out, macro_->name);
    out += '>';
}

Value MacroObject::attribute(std::string_view name) const {
    if (name == "name") {
        return Value::string(macro_->name);
    }
    if (name == "catch_kwargs") {
        return Value::boolean(macro_->uses_kwargs);
    }
    if (name == "catch_varargs") {
        return Value::boolean(macro_->uses_varargs);
    }
    if (name == "caller") {
        return Value::boolean(macro_->uses_caller);
    }
    return Object::attribute(name);
}

Value MacroObject::call(Renderer &renderer, CallArgs &args) const {
    return renderer.callMacro(*macro_, closure_, args);
}

void LoopObject::repr(std::string &out, int) const {
    out += "<LoopContext ";
    out += std::to_string(index0 + 1);
    out += '/';
    out += std::to_string(length());
    out += '>';
}

namespace {

// loop.cycle / loop.changed read as values.
class LoopMethod : public Object {
public:
    LoopMethod(std::shared_ptr<const LoopObject> loop, std::string name)
        : loop_(std::move(loop)), name_(std::move(name)) {}
    const char *typeName() const override { return "method"; }
    bool isCallable() const override { return true; }
    Value call(Renderer &, CallArgs &args) const override { return loop_->callMethod(name_, args); }

private:
    std::shared_ptr<const LoopObject> loop_;
    std::string name_;
};

} // namespace

Value LoopObject::attribute(std::string_view name) const {
    const std::size_t n = length();
    const auto integer = [](std::size_t i) {
        return Value::integer(static_cast<std::int64_t>(i));
    };
    if (name == "index0") {
        return integer(index0);
    }
    if (name == "index") {
        return integer(index0 + 1);
    }
    if (name == "revindex") {
        return integer(n - index0);
    }
    if (name == "revindex0") {
        return integer(n - index0 - 1);
    }
    if (name == "first") {
        return Value::boolean(index0 == 0);
    }
    if (name == "last") {
        return Value::boolean(index0 + 1 == n);
    }
    if (name == "length") {
        return integer(n);
    }
    if (name == "depth") {
        return Value::integer(depth_);
    }
    if (name == "depth0") {
        return Value::integer(depth_ - 1);
    }
    if (name == "previtem") {
        return index0 == 0 ? Value::undefinedMessage("there is no previous item")
                           : (*items_)[index0 - 1];
    }
    if (name == "nextitem") {
        return index0 + 1 >= n ? Value::undefinedMessage("there is no next item")
                               : (*items_)[index0 + 1];
    }
    if (name == "cycle" || name == "changed") {
        return Value::object(std::make_shared<LoopMethod>(shared_from_this(), std::string(name)));
    }
    return Object::attribute(name);
}

Value LoopObject::callMethod(std::string_view name, const CallArgs &args) const {
    if (!args.keywords.empty()) {
        throw TemplateError(std::string(name) + "() got an unexpected keyword argument", 0);
    }
    if (name == "cycle") {
        if (args.positional.empty()) {
            throw TemplateError("no items for cycling given", 0);
        }
        return args.positional[index0 % args.positional.size()];
    }
    const bool changed = !changed_called_ || last_changed_.size() != args.positional.size() || [&] {
        for (std::size_t i = 0; i < last_changed_.size(); ++i) {
            if (!valuesEqual(last_changed_[i], args.positional[i])) {
                return true;
            }
        }
        return false;
    }();
    changed_called_ = true;
    if (changed) {
        last_changed_ = args.positional;
    }
    return Value::boolean(changed);
}

Value LoopObject::call(Renderer &renderer, CallArgs &args) const {
    if (args.positional.size() != 1 || !args.keywords.empty()) {
        throw TemplateError("loop() takes exactly one argument", 0);
    }
    return renderer.callLoop(loop_, args.positional[0], depth_ + 1);
}

void BuiltinFunction::repr(std::string &out, int) const {
    out += "<function ";
    out += name_;
    out += '>';
}

void BoundMethod::repr(std::string &out, int) const {
    out += "<built-in method ";
    out += name_;
    out += " of ";
    out += pythonTypeName(self_);
    out += " object>";
}

Value BoundMethod::call(Renderer &renderer, CallArgs &args) const {
    return callMethod(renderer, self_, name_, args);
}

// ---- the environment's globals ----

namespace {

Value globalRange(Renderer &renderer, CallArgs &args) {
    if (!args.keywords.empty()) {
        renderer.fail("range() takes no keyword arguments");
    }
    const std::size_t n = args.positional.size();
    if (n < 1 || n > 3) {
        renderer.fail("range expected at most 3 arguments, got " + std::to_string(n));
    }
    std::int64_t bounds[3] = {0, 0, 1};
    for (std::size_t i = 0; i < n; ++i) {
        const Value &arg = args.positional[i];
        if (!arg.isInt() && !arg.isBool()) {
            renderer.fail(std::string("'") + pythonTypeName(arg) +
                          "' object cannot be interpreted as an integer");
        }
    }
    if (n == 1) {
        bounds[1] = args.positional[0].asInt();
    } else {
        bounds[0] = args.positional[0].asInt();
        bounds[1] = args.positional[1].asInt();
        if (n == 3) {
            bounds[2] = args.positional[2].asInt();
        }
    }
    const auto [start, stop, step] = bounds;
    if (step == 0) {
        renderer.fail("range() arg 3 must not be zero");
    }
    // Length computed in long double: the bounds may be anywhere in int64.
    const long double span =
        step > 0 ? static_cast<long double>(stop) - start : static_cast<long double>(start) - stop;
    const long double stride =
        step > 0 ? static_cast<long double>(step) : -static_cast<long double>(step);
    const long double length = span <= 0 ? 0 : (span + stride - 1) / stride;
    constexpr long double kMaxRange = 100000;
    if (length > kMaxRange) {
        renderer.fail("Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
    }
    const auto count = static_cast<std::size_t>(length);
    renderer.step(static_cast<std::int64_t>(count));
    auto data = std::make_shared<ListData>();
    data->items.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        data->items.push_back(Value::integer(start + static_cast<std::int64_t>(i) * step));
    }
    data->range_start = start;
    data->range_stop = stop;
    data->range_step = step;
    return Value::list(std::move(data), ListFlavor::Range);
}

// dict(*args, **kwargs) as Python builds it: one optional mapping or iterable of pairs.
std::shared_ptr<DictData> buildDict(Renderer &renderer, CallArgs &args, const char *callee) {
    auto data = std::make_shared<DictData>();
    if (args.positional.size() > 1) {
        renderer.fail(std::string(callee) + " expected at most 1 argument, got " +
                      std::to_string(args.positional.size()));
    }
    if (!args.positional.empty()) {
        const Value &source = args.positional[0];
        if (source.isDict()) {
            for (std::size_t i = 0; i < source.dictSize(); ++i) {
                data->set(source.dictKeyAt(i), source.dictValueAt(i));
            }
        } else {
            for (const Value &pair : renderer.iterate(source)) {
                const ValueList items = renderer.iterate(pair);
                if (items.size() != 2) {
                    renderer.fail("dictionary update sequence element has length " +
                                  std::to_string(items.size()) + "; 2 is required");
                }
                if (!isHashable(items[0])) {
                    renderer.fail(std::string("unhashable type: '") + pythonTypeName(items[0]) +
                                  "'");
                }
                data->set(items[0], items[1]);
            }
        }
    }
    for (auto &[key, value] : args.keywords) {
        data->set(Value::string(key), value);
    }
    renderer.step(static_cast<std::int64_t>(data->items.size()));
    return data;
}

Value globalDict(Renderer &renderer, CallArgs &args) {
    return renderer.makeDict(buildDict(renderer, args, "dict"));
}

Value globalNamespace(Renderer &renderer, CallArgs &args) {
    const auto data = buildDict(renderer, args, "namespace");
    auto ns = std::make_shared<NamespaceObject>();
    for (auto &[key, value] : data->items) {
        if (!key.isString()) {
            renderer.fail("keywords must be strings");
        }
        ns->setAttribute(key.asString(), value);
    }
    renderer.track(ns);
    return Value::object(std::move(ns));
}

class Cycler : public Object {
public:
    explicit Cycler(ValueList items) : items_(std::move(items)) {}
    const char *typeName() const override { return "Cycler"; }
    Value attribute(std::string_view name) const override {
        if (name == "current") {
            return items_[position_];
        }
        if (name == "next" || name == "reset") {
            return Value::object(std::make_shared<CyclerMethod>(self_.lock(), name == "next"));
        }
        return Object::attribute(name);
    }
    void releaseReferences() override {
        items_.clear();
        self_.reset();
    }

    std::weak_ptr<Cycler> self_;

private:
    class CyclerMethod : public Object {
    public:
        CyclerMethod(std::shared_ptr<Cycler> cycler, bool next)
            : cycler_(std::move(cycler)), next_(next) {}
        const char *typeName() const override { return "method"; }
        bool isCallable() const override { return true; }
        Value call(Renderer &renderer, CallArgs &args) const override {
            if (!cycler_ || cycler_->items_.empty()) {
                renderer.fail("the cycler is no longer available");
            }
            if (!args.positional.empty() || !args.keywords.empty()) {
                renderer.fail("takes no arguments");
            }
            if (!next_) {
                cycler_->position_ = 0;
                return Value::none();
            }
            Value current = cycler_->items_[cycler_->position_];
            cycler_->position_ = (cycler_->position_ + 1) % cycler_->items_.size();
            return current;
        }

    private:
        std::shared_ptr<Cycler> cycler_;
        bool next_;
    };

    ValueList items_;
    std::size_t position_ = 0;
};

Value globalCycler(Renderer &renderer, CallArgs &args) {
    if (args.positional.empty()) {
        renderer.fail("at least one item has to be provided");
    }
    auto cycler = std::make_shared<Cycler>(args.positional);
    cycler->self_ = cycler;
    renderer.track(cycler);
    return Value::object(std::move(cycler));
}

class Joiner : public Object {
public:
    explicit Joiner(Value separator) : separator_(std::move(separator)) {}
    const char *typeName() const override { return "Joiner"; }
    bool isCallable() const override { return true; }
    Value call(Renderer &, CallArgs &) const override {
        if (!used_) {
            used_ = true;
            return Value::string("");
        }
        return separator_;
    }
    void releaseReferences() override { separator_ = Value(); }

private:
    Value separator_;
    mutable bool used_ = false;
};

Value globalJoiner(Renderer &renderer, CallArgs &args) {
    Value separator;
    bindArguments("joiner", args, {"sep"}, &separator);
    auto joiner =
        std::make_shared<Joiner>(separator.isUndefined() ? Value::string(", ") : separator);
    renderer.track(joiner);
    return Value::object(std::move(joiner));
}

Value globalRaiseException(Renderer &, CallArgs &args) {
    Value message;
    bindArguments("raise_exception", args, {"message"}, &message);
    if (message.isUndefined() && args.positional.empty() && args.keywords.empty()) {
        throw TemplateError("raise_exception() missing 1 required positional argument: 'message'",
                            0);
    }
    throw TemplateError(toStr(message), 0, true);
}

Value globalStrftimeNow(Renderer &renderer, CallArgs &args) {
    Value format;
    bindArguments("strftime_now", args, {"format"}, &format);
    if (!format.isString()) {
        renderer.fail("strftime() argument 1 must be str, not " +
                      std::string(pythonTypeName(format)));
    }
    const std::string pattern(format.asString());
    if (renderer.options().strftime_now) {
        return Value::string(renderer.options().strftime_now(pattern));
    }
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    std::string out(256 + pattern.size() * 8, '\0');
    out.resize(std::strftime(out.data(), out.size(), pattern.c_str(), &local));
    return Value::string(std::move(out));
}

} // namespace

Value builtinGlobal(std::string_view name) {
    struct Entry {
        const char *name;
        BuiltinCall function;
    };
    static const Entry kGlobals[] = {
        {"range", globalRange},
        {"dict", globalDict},
        {"namespace", globalNamespace},
        {"cycler", globalCycler},
        {"joiner", globalJoiner},
        {"raise_exception", globalRaiseException},
        {"strftime_now", globalStrftimeNow},
    };
    for (const Entry &entry : kGlobals) {
        if (name == entry.name) {
            return Value::object(std::make_shared<BuiltinFunction>(entry.name, entry.function));
        }
    }
    return Value();
}

} // namespace headroom::chat::jinja::detail
