// The operands with structure: addresses (`[%rd1+16]`, `[sym]`, `[0x100]`, the tensor form
// `[%rd10, {%r15, %r16}]`), lists (`{%f1, %f2}`, a call's `(param0, param1)`), and names,
// resolved against the declarations in scope.
#include <iterator>

#include <fmt/format.h>

#include "ptx/parser_impl.h"

namespace tmasim::ptx {

namespace {

// `%v1.x` of a `.reg .v4 .f32 %v1`: the component's register is the vector's.
bool is_vector_component(std::string_view suffix) {
    return suffix == ".x" || suffix == ".y" || suffix == ".z" || suffix == ".w" || suffix == ".r" || suffix == ".g" ||
           suffix == ".b" || suffix == ".a";
}

}  // namespace

Operand Parser::parse_address(Function& f, const Instruction& ins, size_t& count) {
    count_operand(ins, count, tok_.pos);
    Operand a;
    a.kind = Operand::Kind::address;
    a.pos = tok_.pos;
    advance();  // '['
    bool has_offset = false;
    if (tok_.kind == TokenKind::word && !tok_.is_directive() && !tok_.is_word("_")) {
        count_operand(ins, count, tok_.pos);
        Token t = tok_;
        a.base.push_back(name_operand(f, t));
        has_offset = tok_.is('+') || tok_.is('-');
        if (tok_.is('+')) advance();
    } else {
        has_offset = tok_.kind == TokenKind::number || tok_.is('-');
    }
    if (has_offset) {
        bool negative = tok_.is('-');
        if (negative) advance();
        NumberValue v;
        if (tok_.kind != TokenKind::number) fail_here("an integer offset in the address");
        std::string why = read_number(tok_.text, v);
        if (!why.empty()) fail(tok_.pos, why);
        if (v.form != NumberValue::Form::integer) fail_here("an integer offset in the address");
        uint64_t limit = negative ? uint64_t(INT64_MAX) + 1 : uint64_t(INT64_MAX);
        if (v.bits > limit) fail(tok_.pos, fmt::format("the address offset {} does not fit 64 signed bits", tok_.text));
        a.offset = negative ? int64_t(uint64_t(0) - v.bits) : int64_t(v.bits);
        advance();
    }
    if (a.base.empty() && !has_offset) fail_here("a register, a name or an integer in the address");
    if (tok_.is(',')) {
        advance();
        if (!tok_.is('{')) fail_here("'{' (the coordinates) after ',' in the address");
        a.coords = parse_list(f, ins, count, '}').elems;
    }
    expect(']', "to close the address");
    return a;
}

Operand Parser::parse_list(Function& f, const Instruction& ins, size_t& count, char close) {
    count_operand(ins, count, tok_.pos);
    Operand v;
    v.kind = Operand::Kind::vector;
    v.pos = tok_.pos;
    const TextPos open = tok_.pos;
    advance();
    if (tok_.is(close)) {
        advance();
        return v;  // `call f, ();`
    }
    // Lists hold scalars only, so one scratch vector serves every list (see parse_instruction).
    list_scratch_.clear();
    for (;;) {
        if (tok_.is('{') || tok_.is('(') || tok_.is('['))
            fail_here(fmt::format("a register, a number or a name in the list opened at {}:{}", open.line, open.col));
        list_scratch_.push_back(parse_simple_operand(f, ins, count));
        if (!tok_.is(',')) break;
        advance();
    }
    if (!tok_.is(close)) fail_here(fmt::format("',' or '{}' in the list opened at {}:{}", close, open.line, open.col));
    v.elems.assign(std::make_move_iterator(list_scratch_.begin()), std::make_move_iterator(list_scratch_.end()));
    advance();
    return v;
}

Operand Parser::name_operand(Function& f, const Token& t) {
    Operand op;
    op.pos = t.pos;
    op.name = std::string(t.text);
    advance();
    int r = registers_in_scope_.find(op.name);
    if (r < 0 && op.name[0] == '%') {
        size_t dot = op.name.find('.');
        if (dot != std::string::npos && is_vector_component(std::string_view(op.name).substr(dot))) {
            int base = registers_in_scope_.find(op.name.substr(0, dot));
            if (base >= 0 && f.registers[size_t(base)].vector > 0) r = base;
        }
    }
    if (r >= 0) {
        op.kind = Operand::Kind::reg;
        op.reg = r;
        return op;
    }
    if (op.name[0] == '%' || op.name == "WARP_SZ") {
        // WARP_SZ is PTX's one predefined constant; it reads like a special register.
        if (!is_special_register(op.name) && op.name != "WARP_SZ")
            fail(t.pos, fmt::format("'{}' is neither a register declared in scope nor a special register", op.name));
        op.kind = Operand::Kind::special;
        return op;
    }
    if (!is_identifier(op.name)) fail(t.pos, fmt::format("{} is not a name, a register or an opcode's operand", describe(t)));
    op.kind = Operand::Kind::symbol;
    op.variable = variables_in_scope_.find(op.name);
    if (op.variable < 0 && !params_in_scope_.count(op.name) && !variable_index_.count(op.name) && !is_declared_function(op.name))
        op.label = kPendingLabel;
    return op;
}

void Parser::resolve_labels(Function& f) {
    // Labels are seen in their block and the blocks inside, forward too: `bra $L__BB0_5;`
    // before `$L__BB0_5:`. Inline asm repeats its labels (`LAB_WAIT:`) in sibling blocks.
    auto resolve = [&](Operand& op, int scope) {
        if (op.kind != Operand::Kind::symbol || op.label != kPendingLabel) return;
        for (int s = scope; s >= 0; s = f.blocks[size_t(s)].parent) {
            auto it = labels_.find(op.name + '\0' + std::to_string(s));
            if (it != labels_.end()) {
                op.label = it->second;
                return;
            }
        }
        fail(op.pos, fmt::format("'{}' is not declared: no register, variable, param, function or label of that name is in scope",
                                 op.name));
    };
    for (Instruction& ins : f.instructions) {
        for (Operand& op : ins.operands) {
            resolve(op, ins.scope);
            for (Operand& e : op.elems) resolve(e, ins.scope);
            for (Operand& b : op.base) resolve(b, ins.scope);
            for (Operand& c : op.coords) resolve(c, ins.scope);
        }
    }
}

}  // namespace tmasim::ptx
