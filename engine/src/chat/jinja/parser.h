#pragma once

#include "chat/jinja/ast.h"

#include <memory>
#include <string_view>

namespace headroom::chat::jinja::detail {

// Parses a template the way jinja2's parser does (with the loop controls and the
// {% generation %} extension). Throws TemplateError with the line for malformed templates and
// for templates nested deeper than the renderer can safely walk.
std::unique_ptr<TemplateAst> parseTemplate(std::string_view source);

// Nesting bounds: statements inside statements, and the depth of one expression's tree.
constexpr int kMaxStatementNesting = 100;
constexpr int kMaxExpressionDepth = 200;

} // namespace headroom::chat::jinja::detail
