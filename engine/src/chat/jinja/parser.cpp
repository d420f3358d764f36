// The statement half of the parser: template data, tags and their bodies.

#include "chat/jinja/parser_internal.h"

#include <algorithm>

namespace headroom::chat::jinja::detail {

TemplateParser::TemplateParser(std::string_view source)
    : tokens_(tokenize(source)), ast_(std::make_unique<TemplateAst>()) {}

std::unique_ptr<TemplateAst> TemplateParser::run() {
    ast_->body = subparse(nullptr);
    return std::move(ast_);
}

std::unique_ptr<TemplateAst> parseTemplate(std::string_view source) {
    return TemplateParser(source).run();
}

bool TemplateParser::isAnyName(TagNames names) const {
    return cur().type == TokenType::Name &&
           std::find(names.begin(), names.end(), cur().text) != names.end();
}

bool TemplateParser::skipOp(Op op) {
    if (!isOp(op)) {
        return false;
    }
    advance();
    return true;
}

bool TemplateParser::skipName(std::string_view value) {
    if (!isName(value)) {
        return false;
    }
    advance();
    return true;
}

void TemplateParser::fail(const std::string &message) const {
    fail(message, cur().line);
}

void TemplateParser::fail(const std::string &message, int line) const {
    throw TemplateError(message, line);
}

std::string TemplateParser::describe(const Token &token) {
    switch (token.type) {
    case TokenType::Name:
        return token.text;
    case TokenType::Data:
        return "template data / text";
    case TokenType::VariableBegin:
        return "begin of print statement";
    case TokenType::VariableEnd:
        return "end of print statement";
    case TokenType::BlockBegin:
        return "begin of statement block";
    case TokenType::BlockEnd:
        return "end of statement block";
    case TokenType::String:
        return "string";
    case TokenType::Integer:
        return "integer";
    case TokenType::Float:
        return "float";
    case TokenType::Operator:
        return describeOp(token.op);
    case TokenType::Eof:
        return "end of template";
    }
    return "?";
}

void TemplateParser::expect(TokenType type, const char *what) {
    if (cur().type != type) {
        fail(std::string("expected token '") + what + "', got '" + describe(cur()) + "'");
    }
    advance();
}

void TemplateParser::expectOp(Op op) {
    if (!skipOp(op)) {
        fail(std::string("expected token '") + describeOp(op) + "', got '" + describe(cur()) + "'");
    }
}

std::string TemplateParser::expectName() {
    if (cur().type != TokenType::Name) {
        fail("expected token 'name', got '" + describe(cur()) + "'");
    }
    std::string name = cur().text;
    advance();
    return name;
}

void TemplateParser::failOnPendingUnknown() const {
    if (!pending_unknown_.empty()) {
        fail(pending_unknown_.front().first, pending_unknown_.front().second);
    }
}

int TemplateParser::slotOf(const std::string &name) {
    const auto [it, inserted] = slots_.emplace(name, static_cast<int>(ast_->names.size()));
    if (inserted) {
        ast_->names.push_back(name);
    }
    return it->second;
}

TemplateParser::Nesting::Nesting(const TemplateParser &parser, int &counter, int limit)
    : counter_(counter) {
    if (++counter_ > limit) {
        --counter_;
        parser.fail("template nested too deeply");
    }
}

void TemplateParser::grow(Expr &node, int child_depth) const {
    node.depth = std::max(node.depth, child_depth + 1);
    if (node.depth > kMaxExpressionDepth) {
        fail("expression nested too deeply", node.line);
    }
}

int TemplateParser::argsDepth(const ArgumentExprs &args) {
    int depth = 0;
    for (const auto &e : args.positional) {
        depth = std::max(depth, e->depth);
    }
    for (const auto &keyword : args.keywords) {
        depth = std::max(depth, keyword.second->depth);
    }
    depth = std::max(depth, args.star_args ? args.star_args->depth : 0);
    return std::max(depth, args.star_kwargs ? args.star_kwargs->depth : 0);
}

namespace {

std::string quotedAlternatives(TagNames tags) {
    std::string out;
    for (const std::string_view tag : tags) {
        out += out.empty() ? "'" : " or '";
        out += tag;
        out += "'";
    }
    return out;
}

} // namespace

void TemplateParser::failEof(TagNames tags) const {
    std::string message = "Unexpected end of template.";
    if (tags.size() > 0) {
        message += " Jinja was looking for the following tags: " + quotedAlternatives(tags) + ".";
    }
    if (!tag_stack_.empty()) {
        message += " The innermost block that needs to be closed is '" + tag_stack_.back() + "'.";
    }
    fail(message);
}

Body TemplateParser::subparse(const TagNames *end_tags) {
    Body body;
    for (;;) {
        const Token &token = cur();
        switch (token.type) {
        case TokenType::Data:
            body.push_back(std::make_unique<TextStmt>(token.line, token.text));
            advance();
            break;
        case TokenType::VariableBegin: {
            const int line = token.line;
            advance();
            auto expr = parseTuple(true, {}, false);
            expect(TokenType::VariableEnd, "end of print statement");
            failOnPendingUnknown();
            markConstantSlices(*expr, true);
            body.push_back(std::make_unique<PrintStmt>(line, std::move(expr)));
            break;
        }
        case TokenType::BlockBegin:
            advance();
            if (end_tags != nullptr && isAnyName(*end_tags)) {
                return body;
            }
            body.push_back(parseStatement(end_tags));
            failOnPendingUnknown();
            expect(TokenType::BlockEnd, "end of statement block");
            break;
        case TokenType::Eof:
            if (end_tags != nullptr) {
                failEof(*end_tags);
            }
            return body;
        default:
            fail("unexpected '" + describe(token) + "'");
        }
    }
}

Body TemplateParser::parseStatements(TagNames tags) {
    skipOp(Op::Colon);
    expect(TokenType::BlockEnd, "end of statement block");
    return subparse(&tags);
}

Body TemplateParser::parseBodyUntil(std::string_view tag) {
    Body body = parseStatements({tag});
    advance(); // the end tag's name
    return body;
}

// Bodies that jinja2 compiles into functions of their own (macros, call blocks, generation)
// cannot `break` out of an enclosing loop. Only if statements and conditional expressions are
// soft frames; every other body starts a new frame.
template <class F> Body TemplateParser::nestedBody(F parse, bool new_function) {
    const int saved_loop = loop_depth_;
    const bool saved_soft = soft_;
    if (new_function) {
        loop_depth_ = 0;
    }
    soft_ = false;
    Body body = parse();
    loop_depth_ = saved_loop;
    soft_ = saved_soft;
    return body;
}

StmtPtr TemplateParser::parseStatement(const TagNames *enclosing) {
    Nesting nesting(*this, statement_nesting_, kMaxStatementNesting);
    if (cur().type != TokenType::Name) {
        fail("tag name expected");
    }
    const std::string tag = cur().text;
    const int line = cur().line;
    tag_stack_.push_back(tag);
    StmtPtr stmt;
    if (tag == "if") {
        stmt = parseIf(line);
    } else if (tag == "for") {
        stmt = parseFor(line);
    } else if (tag == "set") {
        stmt = parseSet(line);
    } else if (tag == "macro") {
        stmt = parseMacro(line);
    } else if (tag == "call") {
        stmt = parseCallBlock(line);
    } else if (tag == "filter") {
        advance();
        auto block = std::make_unique<FilterBlockStmt>(line);
        block->filter = parseFilter(nullptr, true);
        block->body = nestedBody([&] { return parseBodyUntil("endfilter"); }, false);
        stmt = std::move(block);
    } else if (tag == "with") {
        stmt = parseWith(line);
    } else if (tag == "block") {
        stmt = parseBlock(line);
    } else if (tag == "print") {
        stmt = parsePrint(line);
    } else if (tag == "generation") {
        advance();
        auto block = std::make_unique<ScopedBodyStmt>(StmtKind::Generation, line);
        block->body = nestedBody([&] { return parseBodyUntil("endgeneration"); }, true);
        ast_->has_generation = true;
        stmt = std::move(block);
    } else if (tag == "break" || tag == "continue") {
        if (loop_depth_ == 0) {
            fail("'" + tag + "' outside loop", line);
        }
        advance();
        stmt = std::make_unique<Stmt>(tag == "break" ? StmtKind::Break : StmtKind::Continue, line);
    } else if (tag == "extends" || tag == "include" || tag == "import" || tag == "from" ||
               tag == "autoescape") {
        fail("the '" + tag + "' tag is not supported in chat templates", line);
    } else {
        tag_stack_.pop_back();
        std::string message = "Encountered unknown tag '" + tag + "'.";
        if (enclosing != nullptr) {
            message +=
                " Jinja was looking for the following tags: " + quotedAlternatives(*enclosing) +
                ".";
        }
        if (!tag_stack_.empty()) {
            message +=
                " The innermost block that needs to be closed is '" + tag_stack_.back() + "'.";
        }
        fail(message, line);
    }
    tag_stack_.pop_back();
    return stmt;
}

StmtPtr TemplateParser::parseIf(int line) {
    advance();
    auto stmt = std::make_unique<IfStmt>(line);
    const bool saved_soft = soft_;
    soft_ = true;
    for (;;) {
        auto test = parseTuple(false, {}, false);
        Body body = parseStatements({"elif", "else", "endif"});
        stmt->branches.emplace_back(std::move(test), std::move(body));
        const std::string tag = cur().text;
        advance();
        if (tag == "else") {
            stmt->else_body = parseBodyUntil("endif");
        }
        if (tag != "elif") {
            break;
        }
    }
    soft_ = saved_soft;
    return stmt;
}

StmtPtr TemplateParser::parseFor(int line) {
    advance();
    auto stmt = std::make_unique<ForStmt>(line);
    stmt->target = parseAssignTarget({"in"}, false);
    if (!skipName("in")) {
        fail("expected token 'in', got '" + describe(cur()) + "'");
    }
    stmt->iterable = parseTuple(false, {"recursive"}, false);
    if (skipName("if")) {
        stmt->condition = parseExpression(true);
    }
    stmt->recursive = skipName("recursive");
    stmt->loop_slot = slotOf("loop");
    ++loop_depth_;
    stmt->body = nestedBody([&] { return parseStatements({"endfor", "else"}); }, false);
    --loop_depth_;
    const std::string tag = cur().text;
    advance();
    if (tag == "else") {
        stmt->else_body = nestedBody([&] { return parseBodyUntil("endfor"); }, false);
    }
    return stmt;
}

StmtPtr TemplateParser::parseSet(int line) {
    advance();
    Target target = parseAssignTarget({}, true);
    if (skipOp(Op::Assign)) {
        auto stmt = std::make_unique<SetStmt>(line);
        stmt->target = std::move(target);
        stmt->value = parseTuple(true, {}, false);
        return stmt;
    }
    auto stmt = std::make_unique<SetBlockStmt>(line);
    stmt->target = std::move(target);
    stmt->filter = parseFilter(nullptr, false);
    stmt->body = nestedBody([&] { return parseBodyUntil("endset"); }, false);
    return stmt;
}

void TemplateParser::parseSignature(MacroDef &def) {
    expectOp(Op::LParen);
    while (!isOp(Op::RParen)) {
        if (!def.params.empty()) {
            expectOp(Op::Comma);
        }
        std::string name = expectName();
        if (skipOp(Op::Assign)) {
            def.defaults.push_back(parseExpression(true));
        } else if (!def.defaults.empty()) {
            fail("non-default argument follows default argument");
        }
        def.param_slots.push_back(slotOf(name));
        def.params.push_back(std::move(name));
    }
    expectOp(Op::RParen);
}

Body TemplateParser::parseMacroBody(MacroDef &def, std::string_view end_tag) {
    macros_.push_back(&def);
    Body body = nestedBody([&] { return parseBodyUntil(end_tag); }, true);
    macros_.pop_back();
    def.caller_slot = slotOf("caller");
    def.varargs_slot = slotOf("varargs");
    def.kwargs_slot = slotOf("kwargs");
    return body;
}

StmtPtr TemplateParser::parseMacro(int line) {
    advance();
    auto stmt = std::make_unique<MacroStmt>(line);
    stmt->macro = std::make_shared<MacroDef>();
    stmt->macro->name = expectName();
    stmt->slot = slotOf(stmt->macro->name);
    parseSignature(*stmt->macro);
    stmt->macro->body = parseMacroBody(*stmt->macro, "endmacro");
    return stmt;
}

StmtPtr TemplateParser::parseCallBlock(int line) {
    advance();
    auto stmt = std::make_unique<CallBlockStmt>(line);
    stmt->caller = std::make_shared<MacroDef>();
    stmt->caller->name = "caller";
    if (isOp(Op::LParen)) {
        parseSignature(*stmt->caller);
    }
    stmt->call = parseExpression(true);
    if (stmt->call->kind != ExprKind::Call) {
        fail("expected call", line);
    }
    stmt->caller->body = parseMacroBody(*stmt->caller, "endcall");
    return stmt;
}

StmtPtr TemplateParser::parseWith(int line) {
    advance();
    auto stmt = std::make_unique<WithStmt>(line);
    while (cur().type != TokenType::BlockEnd) {
        if (!stmt->targets.empty()) {
            expectOp(Op::Comma);
        }
        stmt->targets.push_back(parseAssignTarget({}, false));
        expectOp(Op::Assign);
        stmt->values.push_back(parseExpression(true));
    }
    stmt->body = nestedBody([&] { return parseBodyUntil("endwith"); }, false);
    return stmt;
}

StmtPtr TemplateParser::parseBlock(int line) {
    advance();
    auto stmt = std::make_unique<ScopedBodyStmt>(StmtKind::Block, line);
    const std::string name = expectName();
    stmt->scoped = skipName("scoped");
    skipName("required");
    if (isOp(Op::Sub)) {
        fail("Block names in Jinja have to be valid Python identifiers and may not contain "
             "hyphens, use an underscore instead.");
    }
    stmt->body = nestedBody([&] { return parseBodyUntil("endblock"); }, true);
    skipName(name);
    return stmt;
}

StmtPtr TemplateParser::parsePrint(int line) {
    advance();
    // {% print a, b %} prints the expressions one after the other, in the enclosing scope: an
    // always-taken if statement holds them (if statements open no scope).
    auto block = std::make_unique<IfStmt>(line);
    Body prints;
    while (cur().type != TokenType::BlockEnd) {
        if (!prints.empty()) {
            expectOp(Op::Comma);
        }
        prints.push_back(std::make_unique<PrintStmt>(line, parseExpression(true)));
    }
    if (prints.size() == 1) {
        return std::move(prints[0]);
    }
    block->branches.emplace_back(std::make_unique<ConstExpr>(line, Value::boolean(true)),
                                 std::move(prints));
    return block;
}

bool TemplateParser::isTupleEnd(TagNames extra_end) const {
    return cur().type == TokenType::VariableEnd || cur().type == TokenType::BlockEnd ||
           isOp(Op::RParen) || isAnyName(extra_end);
}

Target TemplateParser::parseTargetItem(bool with_namespace) {
    if (cur().type == TokenType::Name) {
        const std::string &name = cur().text;
        if (name == "true" || name == "false" || name == "True" || name == "False" ||
            name == "none" || name == "None") {
            fail("can't assign to 'const'");
        }
        Target target;
        target.name = name;
        target.slot = slotOf(name);
        advance();
        if (with_namespace && isOp(Op::Dot)) {
            advance();
            target.kind = Target::Kind::NamespaceAttribute;
            target.attribute = expectName();
        }
        return target;
    }
    if (skipOp(Op::LParen)) {
        Target target = parseAssignTarget({}, false);
        expectOp(Op::RParen);
        return target;
    }
    if (cur().type == TokenType::String || cur().type == TokenType::Integer ||
        cur().type == TokenType::Float) {
        fail("can't assign to 'const'");
    }
    if (isOp(Op::LBracket)) {
        fail("can't assign to 'list'");
    }
    if (isOp(Op::LBrace)) {
        fail("can't assign to 'dict'");
    }
    fail("unexpected '" + describe(cur()) + "'");
}

Target TemplateParser::parseAssignTarget(TagNames extra_end, bool with_namespace, bool name_only) {
    if (name_only) {
        Target target;
        target.name = expectName();
        target.slot = slotOf(target.name);
        return target;
    }
    Nesting nesting(*this, expression_nesting_, kMaxExpressionDepth);
    Target tuple;
    tuple.kind = Target::Kind::Tuple;
    bool is_tuple = false;
    for (;;) {
        if (!tuple.items.empty()) {
            expectOp(Op::Comma);
        }
        if (isTupleEnd(extra_end)) {
            break;
        }
        tuple.items.push_back(parseTargetItem(with_namespace));
        if (!isOp(Op::Comma)) {
            break;
        }
        is_tuple = true;
    }
    if (!is_tuple) {
        if (tuple.items.empty()) {
            fail("Expected an expression, got '" + describe(cur()) + "'");
        }
        return std::move(tuple.items[0]);
    }
    return tuple;
}

} // namespace headroom::chat::jinja::detail
