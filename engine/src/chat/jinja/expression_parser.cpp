// The expression half of the parser, with jinja2's precedence: conditional expression, or,
// and, not, comparisons, + -, ~, * / // %, **, unary - +, then primaries with their postfix
// subscripts, calls, filters and tests.

#include "chat/jinja/functions.h"
#include "chat/jinja/parser_internal.h"

#include <algorithm>

namespace headroom::chat::jinja::detail {

ExprPtr TemplateParser::makeBinary(ExprKind kind, BinaryOp op, int line, ExprPtr left,
                                   ExprPtr right) {
    const int depth = std::max(left->depth, right->depth);
    auto node = std::make_unique<BinaryExpr>(kind, line, op, std::move(left), std::move(right));
    grow(*node, depth);
    return node;
}

void TemplateParser::noteName(const std::string &name) {
    if (macros_.empty()) {
        return;
    }
    MacroDef &macro = *macros_.back();
    if (name == "caller") {
        macro.uses_caller = true;
    } else if (name == "varargs") {
        macro.uses_varargs = true;
    } else if (name == "kwargs") {
        macro.uses_kwargs = true;
    }
}

ExprPtr TemplateParser::parseTuple(bool with_condexpr, TagNames extra_end, bool explicit_parens) {
    const int line = cur().line;
    std::vector<ExprPtr> items;
    bool is_tuple = false;
    for (;;) {
        if (!items.empty()) {
            expectOp(Op::Comma);
        }
        if (isTupleEnd(extra_end)) {
            break;
        }
        items.push_back(parseExpression(with_condexpr));
        if (!isOp(Op::Comma)) {
            break;
        }
        is_tuple = true;
    }
    if (!is_tuple) {
        if (!items.empty()) {
            return std::move(items[0]);
        }
        if (!explicit_parens) {
            fail("Expected an expression, got '" + describe(cur()) + "'");
        }
    }
    auto tuple = std::make_unique<SequenceExpr>(ExprKind::Tuple, line);
    for (auto &item : items) {
        grow(*tuple, item->depth);
        tuple->items.push_back(std::move(item));
    }
    return tuple;
}

ExprPtr TemplateParser::parseExpression(bool with_condexpr) {
    Nesting nesting(*this, expression_nesting_, kMaxExpressionDepth);
    ExprPtr expr = with_condexpr ? parseCondExpr() : parseOr();
    if (expression_nesting_ == 1) {
        markConstantSlices(*expr, false);
    }
    return expr;
}

ExprPtr TemplateParser::parseCondExpr() {
    int line = cur().line;
    const std::size_t pending_before = pending_unknown_.size();
    ExprPtr expr = parseOr();
    while (skipName("if")) {
        // A conditional expression is a soft frame as a whole, its first part included.
        pending_unknown_.resize(std::min(pending_unknown_.size(), pending_before));
        const bool saved_soft = soft_;
        soft_ = true;
        auto cond = std::make_unique<CondExpr>(line);
        cond->test = parseOr();
        if (skipName("else")) {
            cond->else_value = parseCondExpr();
        }
        soft_ = saved_soft;
        cond->then_value = std::move(expr);
        grow(*cond, std::max({cond->test->depth, cond->then_value->depth,
                              cond->else_value ? cond->else_value->depth : 0}));
        expr = std::move(cond);
        line = cur().line;
    }
    return expr;
}

namespace {

// True when jinja2's optimizer folds `expr` to a constant with this truthiness.
bool constantTruth(const Expr &expr, bool &truth) {
    Value value;
    if (!foldConstant(expr, value)) {
        return false;
    }
    truth = value.truthy();
    return true;
}

} // namespace

ExprPtr TemplateParser::parseOr() {
    int line = cur().line;
    ExprPtr left = parseAnd();
    while (skipName("or")) {
        const std::size_t pending_before = pending_unknown_.size();
        ExprPtr right = parseAnd();
        bool truth = false;
        if (constantTruth(*left, truth) && truth) {
            pending_unknown_.resize(pending_before);
        }
        left = makeBinary(ExprKind::Or, BinaryOp::Add, line, std::move(left), std::move(right));
        line = cur().line;
    }
    return left;
}

ExprPtr TemplateParser::parseAnd() {
    int line = cur().line;
    ExprPtr left = parseNot();
    while (skipName("and")) {
        const std::size_t pending_before = pending_unknown_.size();
        ExprPtr right = parseNot();
        bool truth = true;
        if (constantTruth(*left, truth) && !truth) {
            pending_unknown_.resize(pending_before);
        }
        left = makeBinary(ExprKind::And, BinaryOp::Add, line, std::move(left), std::move(right));
        line = cur().line;
    }
    return left;
}

ExprPtr TemplateParser::parseNot() {
    if (!isName("not")) {
        return parseCompare();
    }
    const int line = cur().line;
    advance();
    Nesting nesting(*this, expression_nesting_, kMaxExpressionDepth);
    auto node = std::make_unique<UnaryExpr>(ExprKind::Not, line, parseNot());
    grow(*node, node->operand->depth);
    return node;
}

ExprPtr TemplateParser::parseCompare() {
    const int line = cur().line;
    ExprPtr expr = parseMath1();
    std::unique_ptr<CompareExpr> compare;
    for (;;) {
        CompareOp op;
        if (isOp(Op::Eq) || isOp(Op::Ne) || isOp(Op::Lt) || isOp(Op::LtEq) || isOp(Op::Gt) ||
            isOp(Op::GtEq)) {
            const Op token = cur().op;
            op = token == Op::Eq     ? CompareOp::Eq
                 : token == Op::Ne   ? CompareOp::Ne
                 : token == Op::Lt   ? CompareOp::Lt
                 : token == Op::LtEq ? CompareOp::LtEq
                 : token == Op::Gt   ? CompareOp::Gt
                                     : CompareOp::GtEq;
            advance();
        } else if (isName("in")) {
            op = CompareOp::In;
            advance();
        } else if (isName("not") && peek().type == TokenType::Name && peek().text == "in") {
            op = CompareOp::NotIn;
            advance();
            advance();
        } else {
            break;
        }
        if (!compare) {
            compare = std::make_unique<CompareExpr>(line);
            grow(*compare, expr->depth);
            compare->first = std::move(expr);
        }
        const std::size_t pending_before = pending_unknown_.size();
        Value folded;
        const bool dead = foldConstant(*compare, folded) && !folded.truthy(); // a false prefix
        ExprPtr operand = parseMath1();
        if (dead) {
            pending_unknown_.resize(pending_before);
        }
        grow(*compare, operand->depth);
        compare->rest.emplace_back(op, std::move(operand));
    }
    if (compare) {
        return compare;
    }
    return expr;
}

ExprPtr TemplateParser::parseMath1() {
    int line = cur().line;
    ExprPtr left = parseConcat();
    while (isOp(Op::Add) || isOp(Op::Sub)) {
        const BinaryOp op = isOp(Op::Add) ? BinaryOp::Add : BinaryOp::Sub;
        advance();
        left = makeBinary(ExprKind::Binary, op, line, std::move(left), parseConcat());
        line = cur().line;
    }
    return left;
}

ExprPtr TemplateParser::parseConcat() {
    const int line = cur().line;
    ExprPtr first = parseMath2();
    if (!isOp(Op::Tilde)) {
        return first;
    }
    auto concat = std::make_unique<ConcatExpr>(line);
    grow(*concat, first->depth);
    concat->parts.push_back(std::move(first));
    while (skipOp(Op::Tilde)) {
        concat->parts.push_back(parseMath2());
        grow(*concat, concat->parts.back()->depth);
    }
    return concat;
}

ExprPtr TemplateParser::parseMath2() {
    int line = cur().line;
    ExprPtr left = parsePow();
    while (isOp(Op::Mul) || isOp(Op::Div) || isOp(Op::FloorDiv) || isOp(Op::Mod)) {
        const Op token = cur().op;
        const BinaryOp op = token == Op::Mul        ? BinaryOp::Mul
                            : token == Op::Div      ? BinaryOp::Div
                            : token == Op::FloorDiv ? BinaryOp::FloorDiv
                                                    : BinaryOp::Mod;
        advance();
        left = makeBinary(ExprKind::Binary, op, line, std::move(left), parsePow());
        line = cur().line;
    }
    return left;
}

ExprPtr TemplateParser::parsePow() {
    int line = cur().line;
    ExprPtr left = parseUnary(true);
    while (skipOp(Op::Pow)) {
        left = makeBinary(ExprKind::Binary, BinaryOp::Pow, line, std::move(left), parseUnary(true));
        line = cur().line;
    }
    return left;
}

ExprPtr TemplateParser::parseUnary(bool with_filter) {
    Nesting nesting(*this, expression_nesting_, kMaxExpressionDepth);
    const int line = cur().line;
    ExprPtr node;
    if (isOp(Op::Sub) || isOp(Op::Add)) {
        const ExprKind kind = isOp(Op::Sub) ? ExprKind::Neg : ExprKind::Pos;
        advance();
        auto unary = std::make_unique<UnaryExpr>(kind, line, parseUnary(false));
        grow(*unary, unary->operand->depth);
        node = std::move(unary);
    } else {
        node = parsePrimary();
    }
    node = parsePostfix(std::move(node));
    if (with_filter) {
        node = parseFilterExpr(std::move(node));
    }
    return node;
}

ExprPtr TemplateParser::parsePrimary() {
    const Token &token = cur();
    const int line = token.line;
    switch (token.type) {
    case TokenType::Name: {
        const std::string name = token.text;
        advance();
        if (name == "true" || name == "True" || name == "false" || name == "False") {
            return std::make_unique<ConstExpr>(line,
                                               Value::boolean(name[0] == 't' || name[0] == 'T'));
        }
        if (name == "none" || name == "None") {
            return std::make_unique<ConstExpr>(line, Value::none());
        }
        noteName(name);
        return std::make_unique<NameExpr>(line, name, slotOf(name));
    }
    case TokenType::String: {
        std::string text = token.text;
        advance();
        while (cur().type == TokenType::String) {
            text += cur().text;
            advance();
        }
        return std::make_unique<ConstExpr>(line, Value::string(std::move(text)));
    }
    case TokenType::Integer: {
        const std::int64_t value = token.integer;
        advance();
        return std::make_unique<ConstExpr>(line, Value::integer(value));
    }
    case TokenType::Float: {
        const double value = token.number;
        advance();
        return std::make_unique<ConstExpr>(line, Value::number(value));
    }
    case TokenType::Operator:
        if (isOp(Op::LParen)) {
            advance();
            ExprPtr node = parseTuple(true, {}, true);
            expectOp(Op::RParen);
            return node;
        }
        if (isOp(Op::LBracket)) {
            return parseList();
        }
        if (isOp(Op::LBrace)) {
            return parseDict();
        }
        break;
    default:
        break;
    }
    fail("unexpected '" + describe(token) + "'");
}

ExprPtr TemplateParser::parseList() {
    auto list = std::make_unique<SequenceExpr>(ExprKind::List, cur().line);
    expectOp(Op::LBracket);
    while (!isOp(Op::RBracket)) {
        if (!list->items.empty()) {
            expectOp(Op::Comma);
        }
        if (isOp(Op::RBracket)) {
            break;
        }
        list->items.push_back(parseExpression(true));
        grow(*list, list->items.back()->depth);
    }
    expectOp(Op::RBracket);
    return list;
}

ExprPtr TemplateParser::parseDict() {
    auto dict = std::make_unique<DictExpr>(cur().line);
    expectOp(Op::LBrace);
    while (!isOp(Op::RBrace)) {
        if (!dict->items.empty()) {
            expectOp(Op::Comma);
        }
        if (isOp(Op::RBrace)) {
            break;
        }
        ExprPtr key = parseExpression(true);
        expectOp(Op::Colon);
        ExprPtr value = parseExpression(true);
        grow(*dict, std::max(key->depth, value->depth));
        dict->items.emplace_back(std::move(key), std::move(value));
    }
    expectOp(Op::RBrace);
    return dict;
}

ExprPtr TemplateParser::parsePostfix(ExprPtr node) {
    for (;;) {
        if (isOp(Op::Dot) || isOp(Op::LBracket)) {
            node = parseSubscript(std::move(node));
        } else if (isOp(Op::LParen)) {
            node = parseCall(std::move(node));
        } else {
            return node;
        }
    }
}

ExprPtr TemplateParser::parseFilterExpr(ExprPtr node) {
    for (;;) {
        if (isOp(Op::Pipe)) {
            node = parseFilter(std::move(node), false);
        } else if (isName("is")) {
            node = parseTest(std::move(node));
        } else if (isOp(Op::LParen)) {
            node = parseCall(std::move(node));
        } else {
            return node;
        }
    }
}

ExprPtr TemplateParser::parseSubscript(ExprPtr node) {
    const int line = cur().line;
    if (skipOp(Op::Dot)) {
        const Token &attribute = cur();
        if (attribute.type == TokenType::Name) {
            auto getattr = std::make_unique<GetattrExpr>(line, std::move(node), attribute.text);
            advance();
            grow(*getattr, getattr->object->depth);
            return getattr;
        }
        if (attribute.type != TokenType::Integer) {
            fail("expected name or number", attribute.line);
        }
        auto index = std::make_unique<ConstExpr>(attribute.line, Value::integer(attribute.integer));
        advance();
        auto getitem = std::make_unique<GetitemExpr>(line, std::move(node), std::move(index));
        grow(*getitem, getitem->object->depth);
        return getitem;
    }
    expectOp(Op::LBracket);
    std::vector<ExprPtr> args;
    while (!isOp(Op::RBracket)) {
        if (!args.empty()) {
            expectOp(Op::Comma);
        }
        args.push_back(parseSubscribed());
    }
    expectOp(Op::RBracket);
    ExprPtr index;
    if (args.size() == 1) {
        index = std::move(args[0]);
    } else {
        auto tuple = std::make_unique<SequenceExpr>(ExprKind::Tuple, line);
        for (auto &arg : args) {
            grow(*tuple, arg->depth);
            tuple->items.push_back(std::move(arg));
        }
        index = std::move(tuple);
    }
    const int depth = std::max(node->depth, index->depth);
    auto getitem = std::make_unique<GetitemExpr>(line, std::move(node), std::move(index));
    grow(*getitem, depth);
    return getitem;
}

ExprPtr TemplateParser::parseSubscribed() {
    auto slice = std::make_unique<SliceExpr>(cur().line);
    if (!skipOp(Op::Colon)) {
        ExprPtr node = parseExpression(true);
        if (!skipOp(Op::Colon)) {
            return node;
        }
        slice->start = std::move(node);
    }
    const auto partEnds = [&] {
        return isOp(Op::Colon) || isOp(Op::RBracket) || isOp(Op::Comma);
    };
    if (!partEnds()) {
        slice->stop = parseExpression(true);
    }
    if (skipOp(Op::Colon) && !isOp(Op::RBracket) && !isOp(Op::Comma)) {
        slice->step = parseExpression(true);
    }
    grow(*slice,
         std::max({slice->start ? slice->start->depth : 0, slice->stop ? slice->stop->depth : 0,
                   slice->step ? slice->step->depth : 0}));
    return slice;
}

ArgumentExprs TemplateParser::parseCallArgs() {
    const int line = cur().line;
    expectOp(Op::LParen);
    ArgumentExprs args;
    const auto ensure = [&](bool ok) {
        if (!ok) {
            fail("invalid syntax for function call expression", line);
        }
    };
    bool require_comma = false;
    while (!isOp(Op::RParen)) {
        if (require_comma) {
            expectOp(Op::Comma);
            if (isOp(Op::RParen)) {
                break;
            }
        }
        if (skipOp(Op::Mul)) {
            ensure(!args.star_args && !args.star_kwargs);
            args.star_args = parseExpression(true);
        } else if (skipOp(Op::Pow)) {
            ensure(!args.star_kwargs);
            args.star_kwargs = parseExpression(true);
        } else if (cur().type == TokenType::Name && peek().type == TokenType::Operator &&
                   peek().op == Op::Assign) {
            ensure(!args.star_kwargs);
            std::string key = cur().text;
            advance();
            advance();
            args.keywords.emplace_back(std::move(key), parseExpression(true));
        } else {
            ensure(!args.star_args && !args.star_kwargs && args.keywords.empty());
            args.positional.push_back(parseExpression(true));
        }
        require_comma = true;
    }
    expectOp(Op::RParen);
    return args;
}

ExprPtr TemplateParser::parseCall(ExprPtr node) {
    auto call = std::make_unique<CallExpr>(cur().line);
    call->args = parseCallArgs();
    grow(*call, std::max(node->depth, argsDepth(call->args)));
    call->callee = std::move(node);
    return call;
}

ExprPtr TemplateParser::parseFilter(ExprPtr node, bool start_inline) {
    while (isOp(Op::Pipe) || start_inline) {
        if (!start_inline) {
            advance();
        }
        start_inline = false;
        const int line = cur().line;
        auto filter = std::make_unique<FilterExpr>(ExprKind::Filter, line);
        filter->name = expectName();
        while (skipOp(Op::Dot)) {
            filter->name += "." + expectName();
        }
        if (isOp(Op::LParen)) {
            filter->args = parseCallArgs();
        }
        filter->function = findFilter(filter->name);
        if (filter->function < 0 && !soft_) {
            pending_unknown_.emplace_back("No filter named '" + filter->name + "'.", line);
        }
        grow(*filter, std::max(node ? node->depth : 0, argsDepth(filter->args)));
        filter->operand = std::move(node);
        node = std::move(filter);
    }
    return node;
}

ExprPtr TemplateParser::parseTest(ExprPtr node) {
    const int line = cur().line;
    advance(); // "is"
    const bool negated = skipName("not");
    auto test = std::make_unique<FilterExpr>(ExprKind::Test, line);
    test->name = expectName();
    while (skipOp(Op::Dot)) {
        test->name += "." + expectName();
    }
    const Token &next = cur();
    const bool argument_start =
        next.type == TokenType::Name || next.type == TokenType::String ||
        next.type == TokenType::Integer || next.type == TokenType::Float ||
        (next.type == TokenType::Operator &&
         (next.op == Op::LParen || next.op == Op::LBracket || next.op == Op::LBrace));
    if (isOp(Op::LParen)) {
        test->args = parseCallArgs();
    } else if (argument_start && !isName("else") && !isName("or") && !isName("and")) {
        if (isName("is")) {
            fail("You cannot chain multiple tests with is");
        }
        Nesting nesting(*this, expression_nesting_, kMaxExpressionDepth);
        test->args.positional.push_back(parsePostfix(parsePrimary()));
    }
    test->function = findTest(test->name);
    if (test->function < 0 && !soft_) {
        pending_unknown_.emplace_back("No test named '" + test->name + "'.", line);
    }
    grow(*test, std::max(node->depth, argsDepth(test->args)));
    test->operand = std::move(node);
    if (!negated) {
        return test;
    }
    auto negation = std::make_unique<UnaryExpr>(ExprKind::Not, line, std::move(test));
    grow(*negation, negation->operand->depth);
    return negation;
}

} // namespace headroom::chat::jinja::detail
