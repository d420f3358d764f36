#pragma once

// The parser's state, shared by its two halves: statements (parser.cpp) and expressions
// (expression_parser.cpp).

#include "chat/jinja/ast.h"
#include "chat/jinja/lexer.h"
#include "chat/jinja/parser.h"

#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace headroom::chat::jinja::detail {

using TagNames = std::initializer_list<std::string_view>;

// The value jinja2's optimizer would fold `expr` to, when it would (constant_folding.cpp).
bool foldConstant(const Expr &expr, Value &out);
// Marks the slices in constant subtrees that jinja2 folds through its getitem as forgiving
// (see GetitemExpr); `printed`: the expression is a {{ }}'s whole content.
void markConstantSlices(Expr &expr, bool printed);

class TemplateParser {
public:
    explicit TemplateParser(std::string_view source);
    std::unique_ptr<TemplateAst> run();

private:
    // ---- token stream ----
    const Token &cur() const { return tokens_[pos_]; }
    void advance() {
        if (pos_ + 1 < tokens_.size()) {
            ++pos_;
        }
    }
    const Token &peek() const { return tokens_[pos_ + 1 < tokens_.size() ? pos_ + 1 : pos_]; }
    bool isOp(Op op) const { return cur().type == TokenType::Operator && cur().op == op; }
    bool isName(std::string_view value) const {
        return cur().type == TokenType::Name && cur().text == value;
    }
    bool isAnyName(TagNames names) const;
    bool skipOp(Op op);
    bool skipName(std::string_view value);
    [[noreturn]] void fail(const std::string &message) const;
    [[noreturn]] void fail(const std::string &message, int line) const;
    static std::string describe(const Token &token);
    void expect(TokenType type, const char *what);
    void expectOp(Op op);
    std::string expectName();
    int slotOf(const std::string &name);

    // Counts recursion of the parser itself; fails past `limit`.
    class Nesting {
    public:
        Nesting(const TemplateParser &parser, int &counter, int limit);
        ~Nesting() { --counter_; }
        Nesting(const Nesting &) = delete;
        Nesting &operator=(const Nesting &) = delete;

    private:
        int &counter_;
    };
    // Sets a node's tree height from its children's and fails past kMaxExpressionDepth.
    void grow(Expr &node, int child_depth) const;
    static int argsDepth(const ArgumentExprs &args);

    // ---- statements (parser.cpp) ----
    [[noreturn]] void failEof(TagNames tags) const;
    Body subparse(const TagNames *end_tags);
    Body parseStatements(TagNames tags);
    Body parseBodyUntil(std::string_view tag);
    StmtPtr parseStatement(const TagNames *enclosing);
    template <class F> Body nestedBody(F parse, bool new_function);
    StmtPtr parseIf(int line);
    StmtPtr parseFor(int line);
    StmtPtr parseSet(int line);
    void parseSignature(MacroDef &def);
    Body parseMacroBody(MacroDef &def, std::string_view end_tag);
    StmtPtr parseMacro(int line);
    StmtPtr parseCallBlock(int line);
    StmtPtr parseWith(int line);
    StmtPtr parseBlock(int line);
    StmtPtr parsePrint(int line);
    Target parseAssignTarget(TagNames extra_end, bool with_namespace, bool name_only = false);
    Target parseTargetItem(bool with_namespace);
    bool isTupleEnd(TagNames extra_end) const;

    // ---- expressions (expression_parser.cpp) ----
    ExprPtr parseTuple(bool with_condexpr, TagNames extra_end, bool explicit_parens);
    ExprPtr parseExpression(bool with_condexpr);
    ExprPtr parseCondExpr();
    ExprPtr parseOr();
    ExprPtr parseAnd();
    ExprPtr parseNot();
    ExprPtr parseCompare();
    ExprPtr parseMath1();
    ExprPtr parseConcat();
    ExprPtr parseMath2();
    ExprPtr parsePow();
    ExprPtr parseUnary(bool with_filter);
    ExprPtr parsePrimary();
    ExprPtr parseList();
    ExprPtr parseDict();
    ExprPtr parsePostfix(ExprPtr node);
    ExprPtr parseFilterExpr(ExprPtr node);
    ExprPtr parseSubscript(ExprPtr node);
    ExprPtr parseSubscribed();
    ArgumentExprs parseCallArgs();
    ExprPtr parseCall(ExprPtr node);
    ExprPtr parseFilter(ExprPtr node, bool start_inline);
    ExprPtr parseTest(ExprPtr node);
    ExprPtr makeBinary(ExprKind kind, BinaryOp op, int line, ExprPtr left, ExprPtr right);
    void noteName(const std::string &name);

    std::vector<Token> tokens_;
    std::size_t pos_ = 0;
    std::unique_ptr<TemplateAst> ast_;
    std::unordered_map<std::string, int> slots_;
    std::vector<std::string> tag_stack_;
    std::vector<MacroDef *> macros_; // being parsed, innermost last
    int statement_nesting_ = 0;
    int expression_nesting_ = 0;
    int loop_depth_ = 0;
    // Inside an if statement or a conditional expression (jinja2's "soft frame"): an unknown
    // filter or test fails only when it runs, not when the template compiles.
    bool soft_ = false;
    // Unknown filters and tests seen outside soft frames: an error once the expression they are
    // in is complete (a conditional expression around them makes them soft after the fact).
    std::vector<std::pair<std::string, int>> pending_unknown_;
    void failOnPendingUnknown() const;
};

} // namespace headroom::chat::jinja::detail
