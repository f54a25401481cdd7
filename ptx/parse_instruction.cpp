// Instructions: `[@[!]pred] opcode[.modifier...] [operand[, operand...]];` and their
// operands. Operands nest at most three deep (an address holds a base and a `{...}` of
// coordinates; a vector holds scalars), so the recursion here is of fixed depth.
#include <algorithm>
#include <cstring>
#include <iterator>

#include <fmt/format.h>

#include "ptx/parser_impl.h"

namespace tmasim::ptx {

namespace {

bool is_opcode_start(std::string_view w) { return !w.empty() && ((w[0] >= 'a' && w[0] <= 'z') || (w[0] >= 'A' && w[0] <= 'Z')); }

}  // namespace

bool is_special_register(std::string_view name) {
    static const char* const kScalars[] = {
        "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid", "%clock", "%clock_hi", "%clock64", "%globaltimer",
        "%globaltimer_lo", "%globaltimer_hi", "%cluster_ctarank", "%cluster_nctarank", "%is_explicit_cluster",
        "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt", "%dynamic_smem_size",
        "%total_smem_size", "%aggr_smem_size", "%reserved_smem_offset_begin", "%reserved_smem_offset_end",
        "%reserved_smem_offset_cap", "%current_graph_exec",
    };
    static const char* const kVectors[] = {"%tid", "%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid",
                                           "%cluster_ctaid", "%cluster_nctaid"};
    for (const char* s : kScalars)
        if (name == s) return true;
    std::string_view base = name;
    size_t dot = name.find('.');
    if (dot != std::string_view::npos) {
        std::string_view comp = name.substr(dot);
        if (comp != ".x" && comp != ".y" && comp != ".z") return false;
        base = name.substr(0, dot);
    }
    for (const char* s : kVectors)
        if (base == s) return true;
    if (dot != std::string_view::npos) return false;
    // %envreg0..%envreg31, %pm0..%pm7, %pm0_64..%pm7_64.
    auto number_in = [](std::string_view digits, int max) {
        if (digits.empty() || digits.size() > 2 || (digits.size() == 2 && digits[0] == '0')) return false;
        int v = 0;
        for (char c : digits) {
            if (c < '0' || c > '9') return false;
            v = v * 10 + (c - '0');
        }
        return v <= max;
    };
    if (name.substr(0, 7) == "%envreg") return number_in(name.substr(7), 31);
    if (name.substr(0, 3) == "%pm") {
        std::string_view rest = name.substr(3);
        if (rest.size() > 3 && rest.substr(rest.size() - 3) == "_64") rest.remove_suffix(3);
        return number_in(rest, 7);
    }
    return false;
}

void Parser::parse_instruction(Function& f) {
    if (instructions_ + 1 > limits_.max_instructions)
        fail(tok_.pos, fmt::format("the module has more than {} instructions; allowed: at most {}", limits_.max_instructions,
                                   limits_.max_instructions));
    // Built in place: an Instruction is 270 bytes and a move of it was a tenth of the parse.
    // A refusal part-way leaves it half-made in a module that is thrown away.
    Instruction& ins = f.instructions.emplace_back();
    ins.pos = tok_.pos;
    ins.text_begin = tok_.offset;
    ins.scope = open_blocks_.back();
    ins.loc = current_loc_;
    if (tok_.is('@')) {
        advance();
        bool negated = tok_.is('!');
        if (negated) advance();
        if (tok_.kind != TokenKind::word) fail_here("a predicate register after '@'");
        Token t = tok_;
        Operand g = name_operand(f, t);
        if (g.kind != Operand::Kind::reg) fail(t.pos, fmt::format("the guard {} is not a declared register; allowed: a .pred register", describe(t)));
        const Register& r = f.registers[size_t(g.reg)];
        if (r.type != ".pred")
            fail(t.pos, fmt::format("the guard {} is a {} register; allowed: a .pred register", describe(t), r.type));
        g.negated = negated;
        ins.guard = std::move(g);
    }
    if (tok_.kind != TokenKind::word || !is_opcode_start(tok_.text)) fail_here("an opcode (mov, ld.global, ...)");
    ins.opcode = std::string(tok_.text);
    ins.parts.reserve(size_t(std::count(ins.opcode.begin(), ins.opcode.end(), '.')) + 1);
    for (size_t begin = 0;;) {
        size_t dot = ins.opcode.find('.', begin);
        size_t end = dot == std::string::npos ? ins.opcode.size() : dot;
        if (end == begin) fail(tok_.pos, fmt::format("opcode {} has an empty part between dots", describe(tok_)));
        ins.parts.push_back(ins.opcode.substr(begin, end - begin));
        if (dot == std::string::npos) break;
        begin = dot + 1;
    }
    advance();
    size_t count = 0;
    // Collected in a vector that keeps its capacity, then moved once into a vector of the
    // right size: an Operand is 150 bytes, and growing 1, 2, 4 moved each one twice.
    operand_scratch_.clear();
    if (!tok_.is(';')) {
        for (;;) {
            operand_scratch_.push_back(parse_operand(f, ins, count));
            if (!tok_.is(',')) break;
            advance();
        }
    }
    if (!tok_.is(';')) fail_here(fmt::format("',' or ';' after the operands of '{}'", ins.opcode));
    ins.operands.assign(std::make_move_iterator(operand_scratch_.begin()), std::make_move_iterator(operand_scratch_.end()));
    ins.text_end = tok_.offset + 1;
    advance();
    ++instructions_;
}

void Parser::count_operand(const Instruction& ins, size_t& count, TextPos pos) {
    if (++count > limits_.max_operands)
        fail(pos, fmt::format("'{}' has more than {} operands (vector entries counted); allowed: at most {}", ins.opcode,
                              limits_.max_operands, limits_.max_operands));
    if (++operands_ > limits_.max_module_operands)
        fail(pos, fmt::format("the module has more than {} operands; allowed: at most {}", limits_.max_module_operands,
                              limits_.max_module_operands));
}

Operand Parser::parse_operand(Function& f, const Instruction& ins, size_t& count) {
    Operand op;
    if (tok_.is('[')) {
        op = parse_address(f, ins, count);
    } else if (tok_.is('{')) {
        op = parse_list(f, ins, count, '}');
    } else if (tok_.is('(')) {
        op = parse_list(f, ins, count, ')');
    } else {
        op = parse_simple_operand(f, ins, count);
    }
    if (!tok_.is('|')) return op;
    // `%p1|%p2` (setp), `%r1|%p1` (shfl.sync, elect.sync): two scalar destinations.
    Operand pair;
    pair.kind = Operand::Kind::pred_pair;
    pair.pos = op.pos;
    if (op.kind != Operand::Kind::reg && op.kind != Operand::Kind::sink)
        fail(tok_.pos, "'|' after an operand that is not a register; allowed: REG|PRED");
    advance();
    pair.elems.reserve(2);
    pair.elems.push_back(std::move(op));
    pair.elems.push_back(parse_simple_operand(f, ins, count));
    if (pair.elems[1].kind != Operand::Kind::reg && pair.elems[1].kind != Operand::Kind::sink)
        fail(pair.elems[1].pos, "the operand after '|' is not a register; allowed: REG|PRED");
    return pair;
}

Operand Parser::parse_simple_operand(Function& f, const Instruction& ins, size_t& count) {
    count_operand(ins, count, tok_.pos);
    if (tok_.is('!')) {
        // `!%p2`: a negated predicate source (selp, and, or, not, setp's combining source).
        TextPos at = tok_.pos;
        advance();
        if (tok_.kind != TokenKind::word) fail_here("a predicate register after '!'");
        Token t = tok_;
        Operand op = name_operand(f, t);
        if (op.kind != Operand::Kind::reg) fail(t.pos, fmt::format("{} after '!' is not a declared register", describe(t)));
        op.negated = true;
        op.pos = at;
        return op;
    }
    if (tok_.is('-')) {
        TextPos at = tok_.pos;
        advance();
        if (tok_.kind != TokenKind::number) fail_here("a number after '-'");
        Operand op = parse_immediate(ins, true);
        op.pos = at;
        return op;
    }
    if (tok_.kind == TokenKind::number) return parse_immediate(ins, false);
    if (tok_.is_word("_")) {
        Operand op;
        op.kind = Operand::Kind::sink;
        op.name = "_";
        op.pos = tok_.pos;
        advance();
        return op;
    }
    if (tok_.kind == TokenKind::word && !tok_.is_directive()) {
        Token t = tok_;
        return name_operand(f, t);
    }
    fail_here(fmt::format("an operand of '{}' (a register, a number, a name, [address], {{vector}})", ins.opcode));
}

Operand Parser::parse_immediate(const Instruction& ins, bool negative) {
    Operand op;
    op.pos = tok_.pos;
    NumberValue v;
    std::string why = read_number(tok_.text, v);
    if (!why.empty()) fail(tok_.pos, why);
    if (negative) v = negate(v);
    switch (v.form) {
    case NumberValue::Form::integer: op.kind = Operand::Kind::imm_int; op.bits = v.bits; break;
    case NumberValue::Form::f32_bits: op.kind = Operand::Kind::imm_f32; op.bits = v.bits; break;
    case NumberValue::Form::f64_bits: op.kind = Operand::Kind::imm_f64; op.bits = v.bits; break;
    case NumberValue::Form::decimal:
        // PTX reads a decimal float as f64; an .f32 instruction takes it rounded to f32.
        if (ins.has("f32") && !ins.has("f64")) {
            float x = float(v.value);
            uint32_t b;
            std::memcpy(&b, &x, 4);
            op.kind = Operand::Kind::imm_f32;
            op.bits = b;
        } else {
            op.kind = Operand::Kind::imm_f64;
            std::memcpy(&op.bits, &v.value, 8);
        }
        break;
    }
    advance();
    return op;
}

}  // namespace tmasim::ptx
