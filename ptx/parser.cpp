#include "ptx/parser.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "ptx/parser_impl.h"

namespace tmasim::ptx {

Parser::Parser(const std::string& text, const std::string& path, const ParseLimits& limits)
    : lex_(text, path), path_(path), limits_(limits) {
    module_.path = path;
    module_.text = text;
}

Module Parser::run() {
    advance();
    while (tok_.kind != TokenKind::end) parse_statement();
    return std::move(module_);
}

void Parser::fail_here(const std::string& expected) const {
    fail(tok_.pos, fmt::format("expected {}, found {}", expected, describe(tok_)));
}

void Parser::expect(char punct, const char* context) {
    if (!tok_.is(punct)) fail_here(fmt::format("'{}' {}", punct, context));
    advance();
}

std::string Parser::expect_name(const char* what) {
    if (tok_.kind != TokenKind::word || !is_identifier(tok_.text)) fail_here(what);
    std::string name(tok_.text);
    advance();
    return name;
}

int64_t Parser::expect_count(const char* what, int64_t min, int64_t max) {
    NumberValue v;
    if (tok_.kind != TokenKind::number || !read_number(tok_.text, v).empty() || v.form != NumberValue::Form::integer)
        fail_here(fmt::format("{} (an integer)", what));
    if (v.bits < uint64_t(min) || v.bits > uint64_t(max))
        fail(tok_.pos, fmt::format("{} is {}; allowed: {}..{}", what, tok_.text, min, max));
    advance();
    return int64_t(v.bits);
}

int64_t Parser::expect_alignment() {
    TextPos at = tok_.pos;
    std::string_view text = tok_.text;
    int64_t align = expect_count("the alignment after .align", 1, int64_t(1) << 30);
    if ((align & (align - 1)) != 0) fail(at, fmt::format("alignment {} is not a power of two; allowed: 1, 2, 4, ..., 2^30", text));
    return align;
}

void Parser::parse_statement() {
    const Token start = tok_;
    if (start.is_word(".version")) return parse_version();
    if (start.is_word(".target")) return parse_target();
    if (start.is_word(".address_size")) return parse_address_size();
    if (start.is_word(".file")) return parse_file();
    if (start.is_word(".section")) return parse_section();
    if (start.is_word(".pragma")) return parse_pragma();
    // Linkage, then what it applies to. `.weak` and `.common` are kept as visible: the
    // symbol is seen outside the module either way.
    bool is_extern = false, is_visible = false;
    while (tok_.is_word(".visible") || tok_.is_word(".extern") || tok_.is_word(".weak") || tok_.is_word(".common")) {
        if (tok_.is_word(".extern"))
            is_extern = true;
        else
            is_visible = true;
        advance();
    }
    if (tok_.is_word(".entry")) return parse_function(true, is_extern, is_visible, start.pos);
    if (tok_.is_word(".func")) return parse_function(false, is_extern, is_visible, start.pos);
    static const std::pair<const char*, Space> kSpaces[] = {
        {".global", Space::global}, {".const", Space::const_}, {".shared", Space::shared}, {".local", Space::local}};
    for (const auto& [word, space] : kSpaces) {
        if (tok_.is_word(word)) {
            advance();
            return parse_variables(space, is_extern, is_visible, nullptr, start.pos);
        }
    }
    if (is_extern || is_visible) fail_here("'.entry', '.func' or a state space (.global, .const, .shared, .local) after the linkage");
    if (tok_.is_directive())
        fail(tok_.pos, fmt::format("unknown directive {} at module scope; allowed: .version, .target, .address_size, .file, "
                                   ".section, .pragma, .visible, .extern, .weak, .common, .entry, .func, .global, .const, "
                                   ".shared, .local",
                                   describe(tok_)));
    fail_here("a directive at module scope (.version, .target, .entry, .func, .global, ...)");
}

void Parser::parse_version() {
    advance();
    std::string_view v = tok_.text;
    size_t dot = v.find('.');
    bool ok = tok_.kind == TokenKind::number && dot != std::string_view::npos && dot > 0 && dot + 1 < v.size() &&
              v.find_first_not_of("0123456789.") == std::string_view::npos && v.find('.', dot + 1) == std::string_view::npos;
    if (!ok) fail_here("a version MAJOR.MINOR after .version");
    module_.version = std::string(v);
    advance();
}

void Parser::parse_target() {
    advance();
    module_.targets.push_back(expect_name("a target (sm_90a, ...) after .target"));
    while (tok_.is(',')) {
        advance();
        module_.targets.push_back(expect_name("a target after ','"));
    }
}

void Parser::parse_address_size() {
    advance();
    TextPos at = tok_.pos;
    int64_t bits = expect_count("the address size", 32, 64);
    if (bits != 32 && bits != 64) fail(at, fmt::format("address size {}; allowed: 32, 64", bits));
    module_.address_size = int(bits);
}

void Parser::parse_file() {
    advance();
    int index = int(expect_count("the file index after .file", 0, INT32_MAX));
    if (tok_.kind != TokenKind::string) fail_here("the file's path as a string");
    // The path as written, its escapes resolved (nvcc writes Windows paths with `\\`).
    std::string name;
    std::string_view quoted = tok_.text.substr(1, tok_.text.size() - 2);
    for (size_t i = 0; i < quoted.size(); ++i) {
        if (quoted[i] == '\\' && i + 1 < quoted.size()) ++i;
        name += quoted[i];
    }
    module_.files[index] = name;
    advance();
    // Optional modification time and size: `.file 1 "a.cu", 1700000000, 2048`.
    for (int extra = 0; extra < 2 && tok_.is(','); ++extra) {
        advance();
        expect_count("the file's timestamp or size", 0, INT64_MAX);
    }
}

void Parser::parse_section() {
    Token start = tok_;
    advance();
    if (!tok_.is_directive()) fail_here("a section name (.debug_str, ...) after .section");
    Section s;
    s.pos = start.pos;
    // The lexer cuts a directive word at its dots: `.nv.debug` comes back as two tokens.
    size_t name_begin = tok_.offset, name_end = tok_.offset + tok_.text.size();
    advance();
    while (tok_.is_directive() && tok_.offset == name_end) {
        name_end += tok_.text.size();
        advance();
    }
    s.name = std::string(std::string_view(module_.text).substr(name_begin, name_end - name_begin));
    if (!tok_.is('{')) fail_here(fmt::format("'{{' after .section {}", s.name));
    s.text_begin = tok_.offset + 1;
    s.text_end = lex_.skip_braced(tok_);
    module_.sections.push_back(std::move(s));
    advance();
}

void Parser::parse_pragma() {
    advance();
    for (;;) {
        if (tok_.kind != TokenKind::string) fail_here("a string after .pragma (\"nounroll\", ...)");
        advance();
        if (!tok_.is(',')) break;
        advance();
    }
    expect(';', "after the .pragma strings");
}

Module parse_module(const std::string& text, const std::string& path, const ParseLimits& limits) {
    if (text.size() > limits.max_text_bytes)
        throw ParseError(path, TextPos{}, fmt::format("the text is {} bytes; allowed: at most {}", text.size(), limits.max_text_bytes));
    Parser parser(text, path, limits);
    return parser.run();
}

Module read_module_file(const std::string& path, const ParseLimits& limits) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) throw ParseError(path, TextPos{}, "cannot read: not a regular file");
    uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) throw ParseError(path, TextPos{}, fmt::format("cannot read: {}", ec.message()));
    if (size > limits.max_text_bytes)
        throw ParseError(path, TextPos{}, fmt::format("the file is {} bytes; allowed: at most {}", size, limits.max_text_bytes));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ParseError(path, TextPos{}, fmt::format("cannot read: {}", std::strerror(errno)));
    std::string text(std::istreambuf_iterator<char>(in), {});
    if (in.bad()) throw ParseError(path, TextPos{}, "cannot read: an I/O error");
    return parse_module(text, path, limits);
}

}  // namespace tmasim::ptx
