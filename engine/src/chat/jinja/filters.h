#pragma once

// Internal to the filter files: the filter table's entries and helpers they share.

#include "chat/jinja/renderer.h"
#include "chat/jinja/value.h"

#include <string_view>
#include <vector>

namespace headroom::chat::jinja::detail {

using FilterFunction = Value (*)(Renderer &renderer, const Value &value, CallArgs &args);

struct FilterEntry {
    std::string_view name;
    FilterFunction function;
};

void addTextFilters(std::vector<FilterEntry> &table);     // text_filters.cpp
void addSequenceFilters(std::vector<FilterEntry> &table); // sequence_filters.cpp

// jinja2's make_attrgetter: "a.b.0" looks up item a, then b, then index 0 (items first, then
// attributes, as environment.getitem does). An empty path returns the item itself.
struct AttributePath {
    std::vector<Value> parts;
};
AttributePath parseAttributePath(const Value &attribute);
Value lookupPath(Renderer &renderer, Value item, const AttributePath &path);

// Python's str() of a value, as a string value (soft_str in jinja2's filters).
Value asText(const Value &value);

} // namespace headroom::chat::jinja::detail
