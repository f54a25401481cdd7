#include "ptx/lexer.h"

#include <array>
#include <cstdint>

#include <fmt/format.h>

namespace tmasim::ptx {

namespace {

bool is_name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }
bool is_punct(char c) {
    switch (c) {
    case '{': case '}': case '[': case ']': case '(': case ')': case ',': case ';': case ':':
    case '@': case '!': case '|': case '+': case '-': case '<': case '>': case '=': case '~':
    case '*': case '/': case '&': case '^': case '%': case '?': case '.':
        return true;
    default:
        return false;
    }
}

}  // namespace

Lexer::Lexer(const std::string& text, const std::string& path) : text_(text), path_(path) {}

void Lexer::fail(TextPos pos, const std::string& message) const { throw ParseError(path_, pos, message); }

TextPos Lexer::end_pos() const {
    // Not the lexer's current place (a lookahead may have run ahead): the end is fixed.
    int line = 1;
    size_t start = 0;
    for (size_t i = 0; i < text_.size(); ++i) {
        if (text_[i] == '\n') {
            ++line;
            start = i + 1;
        }
    }
    return TextPos{line, int(text_.size() - start) + 1};
}

const Token& Lexer::peek() {
    if (!has_lookahead_) {
        lookahead_ = lex();
        has_lookahead_ = true;
    }
    return lookahead_;
}

Token Lexer::next() {
    if (has_lookahead_) {
        has_lookahead_ = false;
        return lookahead_;
    }
    return lex();
}

void Lexer::skip_space_and_comments() {
    const size_t n = text_.size();
    while (at_ < n) {
        char c = text_[at_];
        if (c == '\n') {
            ++line_;
            line_start_ = ++at_;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            ++at_;
        } else if (c == '/' && at_ + 1 < n && text_[at_ + 1] == '/') {
            size_t eol = text_.find('\n', at_);
            at_ = eol == std::string::npos ? n : eol;
        } else if (c == '/' && at_ + 1 < n && text_[at_ + 1] == '*') {
            TextPos open = here();
            size_t close = text_.find("*/", at_ + 2);
            if (close == std::string::npos)
                fail(end_pos(), fmt::format("unterminated /* comment (opened at {}:{}): found the end of the text", open.line, open.col));
            for (size_t i = at_; i < close; ++i) {
                if (text_[i] == '\n') {
                    ++line_;
                    line_start_ = i + 1;
                }
            }
            at_ = close + 2;
        } else {
            return;
        }
    }
}

Token Lexer::lex() {
    skip_space_and_comments();
    Token t;
    t.offset = at_;
    t.pos = here();
    if (at_ >= text_.size()) return t;
    const char c = text_[at_];
    const char after = at_ + 1 < text_.size() ? text_[at_ + 1] : '\0';
    if (is_name_start(c) || (c == '.' && is_name_char(after)) || (c == '%' && is_name_char(after)))
        return lex_word(at_, t.pos);
    if (is_digit(c)) return lex_number(at_, t.pos);
    if (c == '"') return lex_string(at_, t.pos);
    if (is_punct(c)) {
        t.kind = TokenKind::punct;
        t.punct = c;
        t.text = std::string_view(text_).substr(at_, 1);
        ++at_;
        return t;
    }
    if (c >= 0x21 && c <= 0x7e)
        fail(t.pos, fmt::format("unexpected character '{}'; PTX text is names, numbers, strings and the punctuation {{}}[](),;:@!|+-<>=", c));
    fail(t.pos, fmt::format("unexpected byte 0x{:02x}; PTX text is printable ASCII", uint8_t(c)));
}

Token Lexer::lex_word(size_t start, TextPos pos) {
    const size_t n = text_.size();
    const bool directive = text_[start] == '.';
    size_t i = start + 1;
    while (i < n) {
        char c = text_[i];
        if (is_name_char(c)) {
            ++i;
        } else if (c == '.' && !directive) {
            ++i;
        } else if (c == ':' && i + 2 < n && text_[i + 1] == ':' && is_name_char(text_[i + 2])) {
            i += 2;
        } else {
            break;
        }
    }
    at_ = i;
    Token t;
    t.kind = TokenKind::word;
    t.text = std::string_view(text_).substr(start, i - start);
    t.offset = start;
    t.pos = pos;
    return t;
}

Token Lexer::lex_number(size_t start, TextPos pos) {
    const size_t n = text_.size();
    // Hex-like forms (0x, 0f, 0d, 0b) never take an exponent sign: `0x1e-3` is 0x1e minus 3.
    bool prefixed = false;
    if (text_[start] == '0' && start + 1 < n) {
        char p = text_[start + 1];
        prefixed = p == 'x' || p == 'X' || p == 'f' || p == 'F' || p == 'd' || p == 'D' || p == 'b' || p == 'B';
    }
    size_t i = start + 1;
    while (i < n) {
        char c = text_[i];
        if (is_name_char(c) || c == '.') {
            ++i;
        } else if ((c == '+' || c == '-') && !prefixed && (text_[i - 1] == 'e' || text_[i - 1] == 'E') && i + 1 < n &&
                   is_digit(text_[i + 1])) {
            ++i;
        } else {
            break;
        }
    }
    at_ = i;
    Token t;
    t.kind = TokenKind::number;
    t.text = std::string_view(text_).substr(start, i - start);
    t.offset = start;
    t.pos = pos;
    return t;
}

Token Lexer::lex_string(size_t start, TextPos pos) {
    const size_t n = text_.size();
    size_t i = start + 1;
    while (i < n && text_[i] != '"') {
        if (text_[i] == '\n') fail(pos, "unterminated string: a newline before its closing '\"'");
        i += text_[i] == '\\' ? 2 : 1;
    }
    if (i >= n) fail(pos, "unterminated string: the end of the text before its closing '\"'");
    at_ = i + 1;
    Token t;
    t.kind = TokenKind::string;
    t.text = std::string_view(text_).substr(start, at_ - start);
    t.offset = start;
    t.pos = pos;
    return t;
}

size_t Lexer::skip_braced(const Token& open) {
    if (has_lookahead_) {
        // Rewind to the token already lexed: the raw scan starts there.
        at_ = lookahead_.offset;
        line_ = lookahead_.pos.line;
        line_start_ = lookahead_.offset - size_t(lookahead_.pos.col - 1);
        has_lookahead_ = false;
    }
    const size_t n = text_.size();
    int64_t depth = 1;
    // Debug sections are most of a -lineinfo PTX file: skip the bytes that cannot matter fast.
    static const auto kStops = [] {
        std::array<bool, 256> stops{};
        for (char c : std::string_view("\n/\"{}")) stops[uint8_t(c)] = true;
        return stops;
    }();
    while (at_ < n) {
        while (at_ < n && !kStops[uint8_t(text_[at_])]) ++at_;
        if (at_ >= n) break;
        switch (text_[at_]) {
        case '\n':
            ++line_;
            line_start_ = ++at_;
            break;
        case '/':
            if (at_ + 1 < n && (text_[at_ + 1] == '/' || text_[at_ + 1] == '*'))
                skip_space_and_comments();
            else
                ++at_;
            break;
        case '"':
            lex_string(at_, here());
            break;
        case '{':
            ++depth;
            ++at_;
            break;
        case '}':
            if (--depth == 0) return at_++;
            ++at_;
            break;
        default:
            ++at_;
        }
    }
    fail(end_pos(), fmt::format("no '}}' closes the '{{' at {}:{}: found the end of the text", open.pos.line, open.pos.col));
}

std::string describe(const Token& t) {
    switch (t.kind) {
    case TokenKind::end:
        return "the end of the text";
    case TokenKind::string:
        return fmt::format("the string {}", t.text.size() > 40 ? std::string(t.text.substr(0, 40)) + "...\"" : std::string(t.text));
    default:
        if (t.text.size() > 60) return fmt::format("'{}...'", t.text.substr(0, 60));
        return fmt::format("'{}'", t.text);
    }
}

}  // namespace tmasim::ptx
