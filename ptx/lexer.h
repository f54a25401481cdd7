#pragma once
// The PTX tokenizer. PTX is free-form (newlines are spaces), so the parser sees only tokens:
// words, numbers, strings and single punctuation characters, each with its byte offset and
// line:col (1-based, columns in bytes). Comments are skipped here. Tokens are views into the
// text, which must outlive the lexer.
#include <cstddef>
#include <string>
#include <string_view>

#include "ptx/module.h"

namespace tmasim::ptx {

enum class TokenKind { end, word, number, string, punct };

// Words: opcodes with their modifiers (`cp.async.bulk.shared::cluster.global`), registers
// (`%r12`, `%tid.x`), names (`$L__BB0_2`, `_Z6kernelPf`) and directives. A word that starts
// with '.' ends before its next '.', so `.ptr.global.align` is three tokens and `.v4.f32`
// two, the way declarations read them; other words keep their dots (`%tid.x`, `ld.global.v4.f32`).
// `::` belongs to a word when a name character follows it (`shared::cta`); a lone ':' ends a label.
struct Token {
    TokenKind kind = TokenKind::end;
    char punct = 0;          // the character, for TokenKind::punct
    std::string_view text;   // a string keeps its quotes
    size_t offset = 0;       // of the first byte
    TextPos pos;
    bool is(char c) const { return kind == TokenKind::punct && punct == c; }
    bool is_word(std::string_view w) const { return kind == TokenKind::word && text == w; }
    bool is_directive() const { return kind == TokenKind::word && !text.empty() && text[0] == '.'; }
};

class Lexer {
public:
    Lexer(const std::string& text, const std::string& path);
    const Token& peek();   // the token after the current one (lexed once)
    Token next();          // consumes and returns the next token
    // Skips a `{ ... }` body without tokenizing it (debug sections hold megabytes of `.b8`
    // lists): `open` is the '{' just consumed; returns the offset of the matching '}', which
    // is consumed. Strings and comments are respected; nesting is counted, not recursed.
    size_t skip_braced(const Token& open);
    // The position just past the last byte (for "unexpected end" messages).
    TextPos end_pos() const;
    [[noreturn]] void fail(TextPos pos, const std::string& message) const;

private:
    Token lex();
    void skip_space_and_comments();
    Token lex_word(size_t start, TextPos pos);
    Token lex_number(size_t start, TextPos pos);
    Token lex_string(size_t start, TextPos pos);
    TextPos here() const { return TextPos{line_, int(at_ - line_start_) + 1}; }

    const std::string& text_;
    const std::string& path_;
    size_t at_ = 0;
    int line_ = 1;
    size_t line_start_ = 0;
    Token lookahead_;
    bool has_lookahead_ = false;
};

// How a token reads in a message: 'mov.u32', '{', "the end of the text".
std::string describe(const Token& t);

}  // namespace tmasim::ptx
