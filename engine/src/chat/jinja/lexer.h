#pragma once

// Splits a template into tokens the way jinja2's lexer does with trim_blocks and lstrip_blocks
// on: template data (already trimmed), tag delimiters, and the tokens inside tags.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::chat::jinja::detail {

enum class TokenType : std::uint8_t {
    Data,
    VariableBegin,
    VariableEnd,
    BlockBegin,
    BlockEnd,
    Name,
    String,
    Integer,
    Float,
    Operator,
    Eof,
};

enum class Op : std::uint8_t {
    None,
    Add,
    Sub,
    Div,
    FloorDiv,
    Mul,
    Mod,
    Pow,
    Tilde,
    LBracket,
    RBracket,
    LParen,
    RParen,
    LBrace,
    RBrace,
    Eq,
    Ne,
    Gt,
    GtEq,
    Lt,
    LtEq,
    Assign,
    Dot,
    Colon,
    Pipe,
    Comma,
    Semicolon,
};

struct Token {
    TokenType type = TokenType::Eof;
    Op op = Op::None;
    int line = 1;
    std::string text; // data, a name, or a string literal's value
    std::int64_t integer = 0;
    double number = 0;
};

// The value of a string literal's body (between the quotes); throws TemplateError with `line`
// for escapes Python rejects.
std::string decodeStringLiteral(std::string_view body, int line);

// Throws TemplateError (with the line) for input jinja2's lexer rejects.
std::vector<Token> tokenize(std::string_view source);

const char *describeOp(Op op);

} // namespace headroom::chat::jinja::detail
