#include "chat/jinja/lexer.h"

#include "chat/jinja/template.h"
#include "chat/jinja/unicode_text.h"

#include <charconv>
#include <limits>
namespace headroom::chat::jinja::detail {

namespace {

struct OperatorSpelling {
    std::string_view text;
    Op op;
};

// Longest first, as jinja2's operator regex tries them.
constexpr OperatorSpelling kOperators[] = {
    {"//", Op::FloorDiv}, {"**", Op::Pow},      {"==", Op::Eq},    {"!=", Op::Ne},
    {">=", Op::GtEq},     {"<=", Op::LtEq},     {"+", Op::Add},    {"-", Op::Sub},
    {"/", Op::Div},       {"*", Op::Mul},       {"%", Op::Mod},    {"~", Op::Tilde},
    {"[", Op::LBracket},  {"]", Op::RBracket},  {"(", Op::LParen}, {")", Op::RParen},
    {"{", Op::LBrace},    {"}", Op::RBrace},    {">", Op::Gt},     {"<", Op::Lt},
    {"=", Op::Assign},    {".", Op::Dot},       {":", Op::Colon},  {"|", Op::Pipe},
    {",", Op::Comma},     {";", Op::Semicolon},
};

bool isDigitChar(char c) {
    return c >= '0' && c <= '9';
}
bool isNameStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isNameChar(char c) {
    return isNameStart(c) || isDigitChar(c);
}

// jinja2 reads newlines as \n whatever their spelling and drops one trailing newline.
std::string normalizeNewlines(std::string_view source) {
    std::string out;
    out.reserve(source.size());
    for (std::size_t i = 0; i < source.size(); ++i) {
        if (source[i] == '\r') {
            out += '\n';
            if (i + 1 < source.size() && source[i + 1] == '\n') {
                ++i;
            }
        } else {
            out += source[i];
        }
    }
    if (!out.empty() && out.back() == '\n') {
        out.pop_back();
    }
    return out;
}

class Lexer {
public:
    explicit Lexer(std::string_view source) : src_(normalizeNewlines(source)) {}

    std::vector<Token> run() {
        while (pos_ < src_.size()) {
            lexRoot();
        }
        Token eof;
        eof.type = TokenType::Eof;
        eof.line = lineAt(src_.size());
        tokens_.push_back(std::move(eof));
        return std::move(tokens_);
    }

private:
    [[noreturn]] void fail(const std::string &message, std::size_t at) {
        throw TemplateError(message, lineAt(at));
    }

    int lineAt(std::size_t at) {
        // Lines are counted incrementally: positions only move forward, except in messages.
        if (at < line_pos_) {
            line_pos_ = 0;
            line_ = 1;
        }
        for (; line_pos_ < at && line_pos_ < src_.size(); ++line_pos_) {
            if (src_[line_pos_] == '\n') {
                ++line_;
            }
        }
        return line_;
    }

    void emit(TokenType type, std::size_t at, std::string text = {}, Op op = Op::None) {
        Token token;
        token.type = type;
        token.op = op;
        token.line = lineAt(at);
        token.text = std::move(text);
        tokens_.push_back(std::move(token));
    }

    bool startsWith(std::size_t at, std::string_view prefix) const {
        return src_.compare(at, prefix.size(), prefix) == 0;
    }

    // Length of the Python whitespace run at `at`.
    std::size_t spaceRun(std::size_t at) const {
        std::size_t p = at;
        while (p < src_.size()) {
            std::size_t next = p;
            if (!text::isPythonSpace(text::decodeAt(src_, next))) {
                break;
            }
            p = next;
        }
        return p - at;
    }

    // Template data before a tag, with `-` stripping or lstrip_blocks applied.
    void emitData(std::size_t begin, std::size_t end, char sign, bool lstrip_allowed) {
        std::string_view data(src_.data() + begin, end - begin);
        if (sign == '-') {
            data = text::strip(data, nullptr, text::StripSide::Right);
        } else if (sign != '+' && lstrip_allowed) {
            const std::size_t newline = data.rfind('\n');
            const std::size_t line_begin = newline == std::string_view::npos ? 0 : newline + 1;
            if (line_begin > 0 || line_starting_) {
                const std::string_view tail = data.substr(line_begin);
                if (!tail.empty() && text::strip(tail, nullptr, text::StripSide::Left).empty()) {
                    data = data.substr(0, line_begin);
                }
            }
        }
        if (!data.empty()) {
            emit(TokenType::Data, begin, std::string(data));
        }
    }

    // Matches a tag's closing delimiter at `at` ("%}" or "}}" with its -, + and trim_blocks
    // forms); returns the position after it, or npos.
    std::size_t matchTagEnd(std::size_t at, char close) {
        const char end[3] = {close, '}', '\0'};
        if (close != '}' && src_[at] == '+' && startsWith(at + 1, end)) {
            return at + 3;
        }
        if (src_[at] == '-' && startsWith(at + 1, end)) {
            return at + 3 + spaceRun(at + 3);
        }
        if (startsWith(at, end)) {
            std::size_t after = at + 2;
            if (close != '}' && after < src_.size() && src_[after] == '\n') {
                ++after; // trim_blocks
            }
            return after;
        }
        return std::string::npos;
    }

    void lexRoot() {
        std::size_t tag = pos_;
        for (;; ++tag) {
            tag = src_.find('{', tag);
            if (tag == std::string::npos || tag + 1 >= src_.size()) {
                emitData(pos_, src_.size(), '+', false);
                pos_ = src_.size();
                return;
            }
            const char kind = src_[tag + 1];
            if (kind == '{' || kind == '%' || kind == '#') {
                break;
            }
        }
        const char kind = src_[tag + 1];
        std::size_t after = tag + 2;
        char sign = '\0';
        if (after < src_.size() && (src_[after] == '-' || src_[after] == '+')) {
            sign = src_[after++];
        }
        emitData(pos_, tag, sign, kind != '{');
        if (kind == '#') {
            lexComment(after);
        } else if (kind == '%') {
            if (!lexRaw(tag, after)) {
                emit(TokenType::BlockBegin, tag);
                lexTag(after, '%');
            }
        } else {
            emit(TokenType::VariableBegin, tag);
            lexTag(after, '}');
        }
    }

    void lexComment(std::size_t from) {
        for (std::size_t at = from; at < src_.size(); ++at) {
            if (src_[at] != '+' && src_[at] != '-' && src_[at] != '#') {
                continue;
            }
            const std::size_t end = matchTagEnd(at, '#');
            if (end != std::string::npos) {
                line_starting_ = src_[end - 1] == '\n';
                pos_ = end;
                return;
            }
        }
        fail("Missing end of comment tag", from);
    }

    // {% raw %}...{% endraw %}: true when the tag at `tag` opens a raw block.
    bool lexRaw(std::size_t tag, std::size_t after_sign) {
        std::size_t at = after_sign + spaceRun(after_sign);
        if (!startsWith(at, "raw")) {
            return false;
        }
        at += 3;
        at += spaceRun(at);
        std::size_t body = std::string::npos;
        if (startsWith(at, "-%}")) {
            body = at + 3 + spaceRun(at + 3);
        } else if (startsWith(at, "%}")) {
            body = at + 2;
        } else {
            return false;
        }
        line_starting_ = src_[body - 1] == '\n';
        for (std::size_t close = src_.find("{%", body); close != std::string::npos;
             close = src_.find("{%", close + 1)) {
            std::size_t p = close + 2;
            char sign = '\0';
            if (p < src_.size() && (src_[p] == '-' || src_[p] == '+')) {
                sign = src_[p++];
            }
            p += spaceRun(p);
            if (!startsWith(p, "endraw")) {
                continue;
            }
            p += 6;
            p += spaceRun(p);
            const std::size_t end = p < src_.size() ? matchTagEnd(p, '%') : std::string::npos;
            if (end == std::string::npos) {
                continue;
            }
            emitData(body, close, sign, true);
            line_starting_ = src_[end - 1] == '\n';
            pos_ = end;
            return true;
        }
        fail("Missing end of raw directive", tag);
    }

    void lexTag(std::size_t at, char close) {
        std::vector<char> balance;
        while (at < src_.size()) {
            if (balance.empty()) {
                const std::size_t end = matchTagEnd(at, close);
                if (end != std::string::npos) {
                    emit(close == '%' ? TokenType::BlockEnd : TokenType::VariableEnd, at);
                    line_starting_ = src_[end - 1] == '\n';
                    pos_ = end;
                    return;
                }
            }
            const std::size_t spaces = spaceRun(at);
            if (spaces > 0) {
                at += spaces;
                continue;
            }
            const char c = src_[at];
            if (isDigitChar(c)) {
                at = lexNumber(at);
            } else if (isNameStart(c)) {
                std::size_t end = at + 1;
                while (end < src_.size() && isNameChar(src_[end])) {
                    ++end;
                }
                emit(TokenType::Name, at, src_.substr(at, end - at));
                at = end;
            } else if (c == '\'' || c == '"') {
                at = lexString(at);
            } else {
                at = lexOperator(at, balance);
            }
        }
        pos_ = at; // the parser reports the missing end of the tag
    }

    std::size_t lexOperator(std::size_t at, std::vector<char> &balance) {
        for (const auto &[spelling, op] : kOperators) {
            if (!startsWith(at, spelling)) {
                continue;
            }
            if (op == Op::LParen || op == Op::LBracket || op == Op::LBrace) {
                balance.push_back(op == Op::LParen ? ')' : (op == Op::LBracket ? ']' : '}'));
            } else if (op == Op::RParen || op == Op::RBracket || op == Op::RBrace) {
                if (balance.empty()) {
                    fail("unexpected '" + std::string(spelling) + "'", at);
                }
                if (balance.back() != spelling[0]) {
                    fail("unexpected '" + std::string(spelling) + "', expected '" +
                             std::string(1, balance.back()) + "'",
                         at);
                }
                balance.pop_back();
            }
            emit(TokenType::Operator, at, {}, op);
            return at + spelling.size();
        }
        std::size_t next = at;
        const char32_t cp = text::decodeAt(src_, next);
        std::string shown;
        text::appendUtf8(shown, cp);
        fail("unexpected char '" + shown + "' at " + std::to_string(at), at);
    }

    // Digits with single underscores between them: (\d+_)*\d+. Returns the end or npos.
    std::size_t digitRun(std::size_t at) const {
        if (at >= src_.size() || !isDigitChar(src_[at])) {
            return std::string::npos;
        }
        std::size_t p = at;
        while (p < src_.size()) {
            if (isDigitChar(src_[p])) {
                ++p;
            } else if (src_[p] == '_' && p + 1 < src_.size() && isDigitChar(src_[p + 1])) {
                p += 2;
            } else {
                break;
            }
        }
        return p;
    }

    std::size_t exponentEnd(std::size_t at) const {
        if (at >= src_.size() || (src_[at] != 'e' && src_[at] != 'E')) {
            return std::string::npos;
        }
        std::size_t p = at + 1;
        if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) {
            ++p;
        }
        return digitRun(p);
    }

    std::size_t lexNumber(std::size_t at) {
        const bool after_dot = at > 0 && src_[at - 1] == '.';
        const std::size_t whole = digitRun(at);
        std::size_t float_end = std::string::npos;
        if (!after_dot) {
            std::size_t fraction = std::string::npos;
            if (src_[whole] == '.') {
                fraction = digitRun(whole + 1);
            }
            const std::size_t exponent =
                exponentEnd(fraction != std::string::npos ? fraction : whole);
            if (exponent != std::string::npos) {
                float_end = exponent;
            } else if (fraction != std::string::npos) {
                float_end = fraction;
            } else if (exponentEnd(whole) != std::string::npos) {
                float_end = exponentEnd(whole);
            }
        }
        if (float_end != std::string::npos) {
            std::string digits;
            for (std::size_t i = at; i < float_end; ++i) {
                if (src_[i] != '_') {
                    digits += src_[i];
                }
            }
            Token token;
            token.type = TokenType::Float;
            token.line = lineAt(at);
            const auto result =
                std::from_chars(digits.data(), digits.data() + digits.size(), token.number);
            if (result.ec == std::errc::result_out_of_range) {
                token.number =
                    digits.find("e-") != std::string::npos || digits.find("E-") != std::string::npos
                        ? 0.0
                        : std::numeric_limits<double>::infinity();
            }
            tokens_.push_back(std::move(token));
            return float_end;
        }
        return lexInteger(at);
    }

    std::size_t lexInteger(std::size_t at) {
        int base = 10;
        std::size_t p = at;
        if (src_[at] == '0' && at + 1 < src_.size()) {
            const char prefix = static_cast<char>(src_[at + 1] | 0x20);
            base = prefix == 'b' ? 2 : (prefix == 'o' ? 8 : (prefix == 'x' ? 16 : 10));
        }
        const auto isBaseDigit = [&](char c) {
            const char lower = static_cast<char>(c | 0x20);
            if (base == 16) {
                return isDigitChar(c) || (lower >= 'a' && lower <= 'f');
            }
            return c >= '0' && c < static_cast<char>('0' + base);
        };
        std::string digits;
        if (base != 10) {
            p = at + 2;
            while (p < src_.size()) {
                const std::size_t digit = src_[p] == '_' ? p + 1 : p;
                if (digit >= src_.size() || !isBaseDigit(src_[digit])) {
                    break;
                }
                digits += src_[digit];
                p = digit + 1;
            }
            if (digits.empty()) {
                base = 10; // "0b" without digits: the integer 0, then a name
                p = at;
            }
        }
        if (base == 10) {
            // [1-9](_?\d)* or 0(_?0)*
            const char first = src_[at];
            digits = first;
            p = at + 1;
            while (p < src_.size()) {
                const std::size_t digit = src_[p] == '_' ? p + 1 : p;
                if (digit >= src_.size() || !isDigitChar(src_[digit]) ||
                    (first == '0' && src_[digit] != '0')) {
                    break;
                }
                digits += src_[digit];
                p = digit + 1;
            }
        }
        Token token;
        token.type = TokenType::Integer;
        token.line = lineAt(at);
        const auto result =
            std::from_chars(digits.data(), digits.data() + digits.size(), token.integer, base);
        if (result.ec != std::errc()) {
            fail("integer literal too large", at);
        }
        tokens_.push_back(std::move(token));
        return p;
    }

    std::size_t lexString(std::size_t at) {
        const char quote = src_[at];
        std::size_t p = at + 1;
        while (p < src_.size() && src_[p] != quote) {
            p += src_[p] == '\\' ? 2 : 1;
        }
        if (p >= src_.size()) {
            fail(std::string("unexpected char '") + quote + "' at " + std::to_string(at), at);
        }
        Token token;
        token.type = TokenType::String;
        token.line = lineAt(at);
        token.text =
            decodeStringLiteral(std::string_view(src_).substr(at + 1, p - at - 1), lineAt(at));
        tokens_.push_back(std::move(token));
        return p + 1;
    }

    std::string src_;
    std::size_t pos_ = 0;
    bool line_starting_ = true;
    std::size_t line_pos_ = 0;
    int line_ = 1;
    std::vector<Token> tokens_;
};

} // namespace

std::vector<Token> tokenize(std::string_view source) {
    return Lexer(source).run();
}

const char *describeOp(Op op) {
    for (const auto &[spelling, candidate] : kOperators) {
        if (candidate == op) {
            return spelling.data();
        }
    }
    return "?";
}

} // namespace headroom::chat::jinja::detail
