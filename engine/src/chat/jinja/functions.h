#pragma once

// The tables of what templates can call: jinja2's filters and tests, the Python methods of
// str, dict and list, and the global functions of transformers' environment.

#include "chat/jinja/value.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace headroom::chat::jinja::detail {

class Renderer;

// Filters and tests by name: an index, or -1 for a name jinja2 does not have (or that this
// engine does not implement).
int findFilter(std::string_view name);
Value runFilter(int index, Renderer &renderer, const Value &operand, CallArgs &args);
int findTest(std::string_view name);
bool runTest(int index, Renderer &renderer, const Value &operand, CallArgs &args);

// Methods of strings, dicts and lists. Unsafe: a method the immutable sandbox refuses
// (list.append, dict.update, ...): reading it gives an undefined that fails when called.
enum class MethodKind { None, Safe, Unsafe };
MethodKind findMethod(const Value &object, std::string_view name);
Value callMethod(Renderer &renderer, const Value &object, std::string_view name, CallArgs &args);
Value callStringMethod(Renderer &renderer, const Value &object, std::string_view name,
                       CallArgs &args);
// The method as a value (`{% set f = s.upper %}`), for calling later.
Value boundMethod(const Value &object, std::string_view name);

// str.replace(old, new, count) (count < 0: all), and str.format(*args, **kwargs).
std::string pythonReplace(Renderer &renderer, std::string_view s, std::string_view old_text,
                          std::string_view new_text, std::int64_t count);
std::string pythonStrFormat(Renderer &renderer, std::string_view format, const CallArgs &args);

// range, namespace, dict, cycler, joiner, raise_exception, strftime_now; undefined otherwise.
Value builtinGlobal(std::string_view name);

} // namespace headroom::chat::jinja::detail
