// Variables (`.global .align 4 .u32 x = 3;`, `.shared .align 8 .b8 bar[8];`, `.extern
// .shared .align 16 .b8 smem[];`) and params (`.param .align 128 .b8 p[128]`,
// `.param .u64 .ptr .global .align 16 p`).
#include <cstring>

#include <fmt/format.h>

#include "ptx/parser_impl.h"

namespace tmasim::ptx {

namespace {

std::string dims_text(const std::vector<int64_t>& dims) {
    std::string s;
    for (int64_t d : dims) s += d ? fmt::format("[{}]", d) : "[]";
    return s;
}

bool is_float_type(const std::string& type) { return type == ".f32" || type == ".f64"; }

}  // namespace

void Parser::parse_variables(Space space, bool is_extern, bool is_visible, Function* f, TextPos start) {
    int64_t align = 0;
    int vector = 0;
    std::string type;
    while (tok_.is_directive()) {
        if (tok_.is_word(".align")) {
            advance();
            align = expect_alignment();
        } else if (tok_.is_word(".v2") || tok_.is_word(".v4") || tok_.is_word(".v8")) {
            vector = tok_.text[2] - '0';
            advance();
        } else if (type.empty() && type_size(tok_.text) > 0) {
            type = std::string(tok_.text);
            advance();
        } else {
            fail(tok_.pos, fmt::format("unexpected {} in a variable declaration; allowed: .align N, .v2, .v4, .v8, "
                                       "one type (.b8, .u32, .f32, ...), then the name",
                                       describe(tok_)));
        }
    }
    if (type.empty()) fail_here("a type (.b8, .u32, .f32, ...) in the variable declaration");
    for (;;) {
        Variable v;
        v.space = space;
        v.type = type;
        v.align = align;
        v.vector = vector;
        v.is_extern = is_extern;
        v.is_visible = is_visible;
        v.scope = f ? open_blocks_.back() : -1;
        v.pos = start;
        TextPos name_pos = tok_.pos;
        v.name = expect_name("the variable's name");
        int64_t bytes = v.element_bytes();
        while (tok_.is('[')) {
            advance();
            if (tok_.is(']') && v.dims.empty()) {
                v.dims.push_back(0);
            } else {
                int64_t d = expect_count("the array dimension", 1, limits_.max_variable_bytes);
                if (d > limits_.max_variable_bytes / bytes)
                    fail(name_pos, fmt::format("'{}' is more than {} bytes; allowed: at most {}", v.name, limits_.max_variable_bytes,
                                               limits_.max_variable_bytes));
                bytes *= d;
                v.dims.push_back(d);
            }
            expect(']', "after the array dimension");
        }
        if (tok_.is('=')) {
            if (is_extern) fail(tok_.pos, fmt::format("the .extern variable '{}' has an initializer; allowed: none", v.name));
            parse_initializer(v);
        }
        if (!v.dims.empty() && v.dims[0] == 0 && !is_extern)
            fail(name_pos, fmt::format("'{}{}' has no size; allowed: an initializer to size it, or .extern", v.name, dims_text(v.dims)));
        add_variable(std::move(v), f);
        if (!tok_.is(',')) break;
        advance();
    }
    expect(';', "after the variable declaration");
}

void Parser::add_variable(Variable v, Function* f) {
    if (!f) {
        auto [it, fresh] = variable_index_.emplace(v.name, int(module_.variables.size()));
        if (!fresh) {
            const Variable& was = module_.variables[size_t(it->second)];
            fail(v.pos, fmt::format("variable '{}' is declared again (first at {}:{})", v.name, was.pos.line, was.pos.col));
        }
        module_.variables.push_back(std::move(v));
        return;
    }
    int was = variables_in_scope_.find(v.name);
    if (was >= 0 && f->variables[size_t(was)].scope == v.scope) {
        const Variable& w = f->variables[size_t(was)];
        fail(v.pos, fmt::format("variable '{}' is declared again in its block (first at {}:{})", v.name, w.pos.line, w.pos.col));
    }
    variables_in_scope_.declare(v.name, int(f->variables.size()));
    f->variables.push_back(std::move(v));
}

void Parser::parse_initializer(Variable& v) {
    advance();  // '='
    // Entries of the type, flat: `x[2][2] = {{1, 2}, {3, 4}}` is four; `[]` takes the count.
    int64_t scalar = type_size(v.type);
    // `x[]` takes as many as fit the size limit; the checked dims bound the rest.
    int64_t capacity = std::max(v.vector, 1);
    if (!v.dims.empty() && v.dims[0] == 0)
        capacity = limits_.max_variable_bytes / scalar;
    else
        for (int64_t d : v.dims) capacity *= d;
    if (!tok_.is('{')) {
        write_initializer_entry(v, capacity);
    } else {
        // Iterative over the braces: one level per dimension (and one for a vector), no more.
        const int max_depth = std::max<int>(int(v.dims.size()) + (v.vector > 0 ? 1 : 0), 1);
        int depth = 0;
        for (;;) {
            while (tok_.is('{')) {
                if (depth == max_depth)
                    fail(tok_.pos, fmt::format("initializer of '{}{}' nests deeper than its {} dimension(s)", v.name,
                                               dims_text(v.dims), max_depth));
                ++depth;
                advance();
            }
            write_initializer_entry(v, capacity);
            while (depth > 0 && tok_.is('}')) {
                --depth;
                advance();
            }
            if (depth == 0) break;
            expect(',', "or '}' between initializer entries");
        }
    }
    if (!v.dims.empty() && v.dims[0] == 0) {
        int64_t inner = std::max(v.vector, 1) * scalar;
        for (size_t i = 1; i < v.dims.size(); ++i) inner *= v.dims[i];
        v.dims[0] = (int64_t(v.init.size()) + inner - 1) / inner;
    }
}

void Parser::write_initializer_entry(Variable& v, int64_t capacity) {
    const int64_t n = type_size(v.type);
    if (int64_t(v.init.size()) / n >= capacity)
        fail(tok_.pos, fmt::format("'{}{}' takes {} initializer entries; found more", v.name, dims_text(v.dims), capacity));
    const size_t at = v.init.size();
    uint64_t bits = 0;
    if (tok_.kind == TokenKind::word) {
        // An address: `sym`, `generic(sym)`, optionally `+ N`; the addend goes in the bytes.
        TextPos pos = tok_.pos;
        if (n < 4) fail(pos, fmt::format("an address in the initializer of '{}' ({}); allowed: a 32- or 64-bit type", v.name, v.type));
        std::string sym;
        if (tok_.is_word("generic")) {
            advance();
            expect('(', "after generic");
            sym = expect_name("a symbol in generic( )");
            expect(')', "after the symbol of generic(");
        } else {
            sym = expect_name("an initializer value");
        }
        if (tok_.is('+')) {
            advance();
            bits = uint64_t(expect_count("the offset after the address", 0, INT64_MAX));
        }
        v.init_symbols.emplace_back(int64_t(at), sym);
    } else {
        bool negative = tok_.is('-');
        if (negative) advance();
        NumberValue num;
        if (tok_.kind != TokenKind::number) fail_here("an initializer value (a number or a symbol)");
        std::string why = read_number(tok_.text, num);
        if (!why.empty()) fail(tok_.pos, why);
        uint64_t magnitude = num.bits;
        if (negative) num = negate(num);
        using Form = NumberValue::Form;
        if (!is_float_type(v.type)) {
            if (num.form != Form::integer)
                fail(tok_.pos, fmt::format("a float literal in the initializer of '{}' ({}); allowed: an integer", v.name, v.type));
            // Fits the entry as signed or unsigned: -128..255 for a byte.
            if (n < 8) {
                uint64_t limit = negative ? (uint64_t(1) << (8 * n - 1)) : (uint64_t(1) << (8 * n)) - 1;
                if (magnitude > limit)
                    fail(tok_.pos, fmt::format("{}{} does not fit {}; allowed: {}..{}", negative ? "-" : "", tok_.text, v.type,
                                               -(int64_t(1) << (8 * n - 1)), (uint64_t(1) << (8 * n)) - 1));
            }
            bits = num.bits;
        } else {
            double value = 0;
            switch (num.form) {
            case Form::integer: value = negative ? -double(magnitude) : double(magnitude); break;
            case Form::decimal: value = num.value; break;
            case Form::f32_bits: {
                float f;
                uint32_t b = uint32_t(num.bits);
                std::memcpy(&f, &b, 4);
                value = f;
                break;
            }
            case Form::f64_bits: std::memcpy(&value, &num.bits, 8); break;
            }
            if (n == 4 && num.form == Form::f32_bits) {
                bits = num.bits;  // as written: keeps NaN payloads
            } else if (n == 4) {
                float f = float(value);
                uint32_t b;
                std::memcpy(&b, &f, 4);
                bits = b;
            } else {
                std::memcpy(&bits, &value, 8);
            }
        }
        advance();
    }
    for (int64_t i = 0; i < n; ++i) v.init.push_back(uint8_t(i < 8 ? bits >> (8 * i) : 0));
}

Param Parser::parse_param() {
    Param p;
    p.pos = tok_.pos;
    if (!tok_.is_word(".param")) fail_here("'.param' (a param declaration)");
    advance();
    bool ptr = false;
    while (tok_.is_directive()) {
        if (tok_.is_word(".align")) {
            advance();
            (ptr ? p.ptr_align : p.align) = expect_alignment();
        } else if (tok_.is_word(".ptr") && !ptr && !p.type.empty()) {
            ptr = true;
            advance();
        } else if (ptr && p.ptr_space.empty() &&
                   (tok_.is_word(".global") || tok_.is_word(".shared") || tok_.is_word(".const") || tok_.is_word(".local"))) {
            p.ptr_space = std::string(tok_.text.substr(1));
            advance();
        } else if (p.type.empty() && type_size(tok_.text) > 0) {
            p.type = std::string(tok_.text);
            advance();
        } else {
            fail(tok_.pos, fmt::format("unexpected {} in a param declaration; allowed: .align N, one type (.u64, .b8, ...), "
                                       "then .ptr [.global|.shared|.const|.local] [.align N]",
                                       describe(tok_)));
        }
    }
    if (p.type.empty()) fail_here("a type (.u64, .b8, ...) in the param declaration");
    TextPos name_pos = tok_.pos;
    p.name = expect_name("the param's name");
    p.size_bytes = type_size(p.type);
    while (tok_.is('[')) {
        advance();
        int64_t d = expect_count("the param's array dimension", 1, limits_.max_variable_bytes);
        if (d > limits_.max_variable_bytes / p.size_bytes)
            fail(name_pos, fmt::format("param '{}' is more than {} bytes; allowed: at most {}", p.name, limits_.max_variable_bytes,
                                       limits_.max_variable_bytes));
        p.size_bytes *= d;
        p.dims.push_back(d);
        expect(']', "after the array dimension");
    }
    if (p.align == 0) p.align = type_size(p.type);
    return p;
}

void Parser::parse_param_list(std::vector<Param>& into) {
    expect('(', "to open the param list");
    if (!tok_.is(')')) {
        for (;;) {
            into.push_back(parse_param());
            if (!tok_.is(',')) break;
            advance();
        }
    }
    expect(')', "or ',' after a param");
    // The param buffer: each param at the next multiple of its alignment, in order. Sizes are
    // at most max_variable_bytes each and the count is bounded by the text: no overflow.
    int64_t end = 0;
    for (Param& p : into) {
        p.offset = (end + p.align - 1) / p.align * p.align;
        end = p.offset + p.size_bytes;
    }
}

}  // namespace tmasim::ptx
