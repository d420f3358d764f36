#pragma once

// Python's text forms of values: str() (what {{ }} prints), repr() (inside containers),
// json.dumps (transformers' tojson), and the % operator's printf-style formatting.

#include "chat/jinja/value.h"

#include <string>
#include <string_view>

namespace headroom::chat::jinja {

void appendStr(std::string &out, const Value &v);
void appendRepr(std::string &out, const Value &v, int depth = 0);
std::string toStr(const Value &v);
std::string toRepr(const Value &v);

void appendFloatRepr(std::string &out, double d);
void appendStringRepr(std::string &out, std::string_view s);

struct JsonDumpOptions {
    bool ensure_ascii = false;
    bool has_indent = false;
    std::string indent;
    std::string item_separator = ", ";
    std::string key_separator = ": ";
    bool sort_keys = false;
};

// json.dumps(v, ...). Throws TemplateError for values JSON cannot hold (as Python's TypeError).
void appendJson(std::string &out, const Value &v, const JsonDumpOptions &options, int depth = 0);

// `format % args` for strings (printf-style).
std::string percentFormat(std::string_view format, const Value &args);

// Python's int(str) parsing (whitespace, sign, underscores, base prefixes): false when invalid.
bool parsePythonInt(std::string_view s, int base, std::int64_t &out);
// Python's float(str): false when invalid.
bool parsePythonFloat(std::string_view s, double &out);

} // namespace headroom::chat::jinja
