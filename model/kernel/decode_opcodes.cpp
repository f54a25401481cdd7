// Which DInst each PTX opcode becomes: the integer, bit, float, compare and conversion
// instructions. Control flow, warp collectives and calls are decode_control.cpp's; memory
// and unit instructions decode_memory.cpp's. An opcode or modifier not handled here is
// refused with its line (Decoder::unsupported), never run approximately.
#include <fmt/format.h>

#include "model/kernel/decoder_impl.h"
#include "ptx/instruction_kinds.h"

namespace tmasim::model::kernel {
namespace {

struct Named {
    const char* name;
    Opc op;
};

// Opcodes whose operands are `d, a[, b[, c]]` of one type, integer or float by that type.
constexpr Named kIntOps[] = {
    {"add", Opc::add},       {"sub", Opc::sub},   {"div", Opc::div},     {"rem", Opc::rem},     {"abs", Opc::abs},
    {"neg", Opc::neg},       {"min", Opc::min},   {"max", Opc::max},     {"popc", Opc::popc},   {"clz", Opc::clz},
    {"bfind", Opc::bfind},   {"brev", Opc::brev}, {"bfe", Opc::bfe},     {"bfi", Opc::bfi},     {"prmt", Opc::prmt},
    {"shl", Opc::shl},       {"shr", Opc::shr},   {"and", Opc::and_},    {"or", Opc::or_},      {"xor", Opc::xor_},
    {"not", Opc::not_},      {"cnot", Opc::cnot}, {"lop3", Opc::lop3},   {"addc", Opc::addc},   {"subc", Opc::subc},
    {"madc", Opc::madc},     {"sad", Opc::sad},   {"dp4a", Opc::dp4a},   {"dp2a", Opc::dp2a},   {"copysign", Opc::copysign},
    {"testp", Opc::testp},   {"selp", Opc::selp}, {"slct", Opc::slct},
};
constexpr Named kFloatOps[] = {
    {"add", Opc::fadd}, {"sub", Opc::fsub}, {"mul", Opc::fmul},  {"fma", Opc::ffma}, {"mad", Opc::ffma},
    {"div", Opc::fdiv}, {"rcp", Opc::frcp}, {"sqrt", Opc::fsqrt}, {"rsqrt", Opc::frsqrt}, {"ex2", Opc::fex2},
    {"lg2", Opc::flg2}, {"sin", Opc::fsin}, {"cos", Opc::fcos},  {"tanh", Opc::ftanh}, {"min", Opc::fmin},
    {"max", Opc::fmax}, {"abs", Opc::fabs}, {"neg", Opc::fneg},
};

bool float_type(Ty t) { return ty_float(t) || t == Ty::f16x2 || t == Ty::bf16x2; }

Cmp parse_cmp(const std::string& s, bool& ok) {
    static const std::pair<const char*, Cmp> table[] = {
        {"eq", Cmp::eq},   {"ne", Cmp::ne},   {"lt", Cmp::lt},   {"le", Cmp::le},   {"gt", Cmp::gt},   {"ge", Cmp::ge},
        {"lo", Cmp::lo},   {"ls", Cmp::ls},   {"hi", Cmp::hi},   {"hs", Cmp::hs},   {"equ", Cmp::equ}, {"neu", Cmp::neu},
        {"ltu", Cmp::ltu}, {"leu", Cmp::leu}, {"gtu", Cmp::gtu}, {"geu", Cmp::geu}, {"num", Cmp::num}, {"nan", Cmp::nan}};
    for (const auto& [n, c] : table)
        if (s == n) {
            ok = true;
            return c;
        }
    ok = false;
    return Cmp::eq;
}

}  // namespace

Ty instruction_type(const ptx::Instruction& ins, int nth) {
    int seen = 0;
    for (size_t i = 1; i < ins.parts.size(); ++i) {
        const Ty t = parse_ty(ins.parts[i]);
        if (t == Ty::none) continue;
        if (seen++ == nth) return t;
    }
    return Ty::none;
}

Round rounding(const ptx::Instruction& ins) {
    static const std::pair<const char*, Round> table[] = {{"rn", Round::rn},   {"rz", Round::rz},   {"rm", Round::rm},
                                                          {"rp", Round::rp},   {"rni", Round::rni}, {"rzi", Round::rzi},
                                                          {"rmi", Round::rmi}, {"rpi", Round::rpi}};
    for (const auto& [n, r] : table)
        if (ins.has(n)) return r;
    return Round::none;
}

void Decoder::decode_instruction(Frame& fr, int index) {
    const ptx::Instruction& ins = fr.f->instructions.at(static_cast<size_t>(index));
    DInst d;
    d.fn = fr.fn;
    d.ins = index;
    if (ins.guard) {
        d.guard = reg_slot(fr, ins, *ins.guard);
        d.guard_neg = ins.guard->negated;
    }
    d.type = instruction_type(ins);
    d.type2 = instruction_type(ins, 1);
    if (ins.has("sat") || ins.has("satfinite")) d.mod |= kModSat;
    if (ins.has("ftz")) d.mod |= kModFtz;
    if (ins.has("approx")) d.mod |= kModApprox;
    if (ins.has("cc")) d.mod |= kModCc;
    if (ins.has("relu")) d.mod |= kModRelu;
    if (ins.has("NaN")) d.mod |= kModNan;
    if (ins.has("xorsign")) d.mod |= kModXorsign;
    if (ins.has("uni")) d.mod |= kModUni;
    if (ins.has("full")) d.mod |= kModFull;
    d.mod |= static_cast<uint32_t>(rounding(ins)) << kModRoundShift;
    if (ptx::unit_op_kind(ins)) return decode_unit(fr, ins, d);
    const std::string& head = ins.parts.at(0);
    if (head == "ld" || head == "ldu") return decode_memory(fr, ins, d, false);
    if (head == "st") return decode_memory(fr, ins, d, true);
    if (head == "call") return decode_call(fr, ins, d);
    return decode_alu(fr, ins, d);
}

void Decoder::decode_alu(Frame& fr, const ptx::Instruction& ins, DInst d) {
    const std::string& head = ins.parts.at(0);
    const auto& ops = ins.operands;
    auto sources = [&](size_t from, Ty t) {
        for (size_t i = from; i < ops.size(); ++i) {
            if (d.nsrc >= 4) unsupported(fr, ins, "more than four source operands");
            d.src[d.nsrc++] = value(fr, ins, ops[i], t);
        }
    };
    auto one_dest = [&]() {
        if (ops.empty()) unsupported(fr, ins, "no destination");
        d.dst[0] = dest(fr, ins, ops[0]);
        d.ndst = 1;
    };
    if (head == "mov") {
        if (ops.size() != 2) unsupported(fr, ins, "mov takes two operands");
        if (ops[0].kind == ptx::Operand::Kind::vector || ops[1].kind == ptx::Operand::Kind::vector) {
            const bool pack = ops[1].kind == ptx::Operand::Kind::vector;
            const ptx::Operand& v = pack ? ops[1] : ops[0];
            if (v.elems.size() < 2 || v.elems.size() > 4) unsupported(fr, ins, "a vector of 2 to 4 parts");
            d.op = pack ? Opc::mov_pack : Opc::mov_unpack;
            d.imm = static_cast<int64_t>(v.elems.size());
            std::vector<int32_t> parts;
            for (const ptx::Operand& e : v.elems) parts.push_back(pack ? value(fr, ins, e, Ty::b32) : dest(fr, ins, e));
            d.extra = static_cast<int32_t>(out_.program.lists.size());
            out_.program.lists.push_back(parts);
            if (pack) one_dest();
            else d.src[d.nsrc++] = value(fr, ins, ops[1], d.type);
            return emit(d);
        }
        one_dest();
        if (ops[1].kind == ptx::Operand::Kind::special) {
            const std::string& n = ops[1].name;
            if (n == "%clock" || n == "%clock64" || n == "%clock_hi") {
                d.op = Opc::read_clock;
                d.sub = n == "%clock64" ? 1 : n == "%clock_hi" ? 2 : 0;
                return emit(d);
            }
            if (n == "%globaltimer" || n == "%globaltimer_lo" || n == "%globaltimer_hi") {
                d.op = Opc::read_globaltimer;
                d.sub = n == "%globaltimer" ? 0 : n == "%globaltimer_lo" ? 1 : 2;
                return emit(d);
            }
        }
        d.op = Opc::mov;
        sources(1, d.type);
        return emit(d);
    }
    if (head == "cvta") {
        one_dest();
        const bool to = ins.has("to");
        const std::string space = ptx::memory_space(ins);
        if (space.empty()) unsupported(fr, ins, "cvta without a state space");
        d.op = to ? Opc::cvta_to : Opc::cvta_from;
        d.sub = static_cast<uint8_t>(space == "shared" ? ptx::Space::shared
                                     : space == "global" ? ptx::Space::global
                                     : space == "local"  ? ptx::Space::local
                                     : space == "param"  ? ptx::Space::param
                                     : space == "const"  ? ptx::Space::const_
                                                         : ptx::Space::tex);
        if (space == "shared::cluster") unsupported(fr, ins, "cvta of shared::cluster addresses");
        sources(1, Ty::u64);
        return emit(d);
    }
    if (head == "setp" || head == "set") {
        bool ok = false;
        const Cmp c = parse_cmp(ins.parts.size() > 1 ? ins.parts[1] : "", ok);
        if (!ok) unsupported(fr, ins, "no comparison operator");
        d.mod |= static_cast<uint32_t>(c) << kModCmpShift;
        const int bop = ins.has("and") ? 1 : ins.has("or") ? 2 : ins.has("xor") ? 3 : 0;
        d.mod |= static_cast<uint32_t>(bop) << kModBoolShift;
        d.op = head == "setp" ? Opc::setp : Opc::set;
        // setp: type is the compared type; set: dtype then stype.
        if (head == "set") {
            d.type2 = instruction_type(ins, 1);
        } else {
            d.type2 = d.type;
            d.type = Ty::pred;
        }
        if (ops.size() < 3) unsupported(fr, ins, "too few operands");
        if (ops[0].kind == ptx::Operand::Kind::pred_pair) {
            d.dst[0] = dest(fr, ins, ops[0].elems.at(0));
            d.dst[1] = dest(fr, ins, ops[0].elems.at(1));
            d.ndst = 2;
        } else {
            one_dest();
        }
        d.src[d.nsrc++] = value(fr, ins, ops[1], d.type2);
        d.src[d.nsrc++] = value(fr, ins, ops[2], d.type2);
        if (ops.size() > 3) d.src[d.nsrc++] = value(fr, ins, ops[3], Ty::pred);
        if (bop != 0 && d.nsrc != 3) unsupported(fr, ins, "a combining operator without its predicate");
        return emit(d);
    }
    if (head == "cvt") {
        one_dest();
        d.op = Opc::cvt;
        if (d.type2 == Ty::none) unsupported(fr, ins, "cvt needs a destination and a source type");
        // cvt.rn.f16x2.f32 d, a, b packs two: the source type is the second type then.
        sources(1, d.type2);
        return emit(d);
    }
    if (head == "mul" || head == "mad" || head == "mul24" || head == "mad24") {
        if (float_type(d.type)) {
            d.op = head == "mul" ? Opc::fmul : Opc::ffma;
        } else if (head == "mul24" || head == "mad24") {
            if (!ins.has("lo")) unsupported(fr, ins, ".hi of a 24-bit multiply");
            d.op = head == "mul24" ? Opc::mul24_lo : Opc::mad24_lo;
        } else {
            const bool mad = head == "mad";
            d.op = ins.has("wide") ? (mad ? Opc::mad_wide : Opc::mul_wide)
                   : ins.has("hi") ? (mad ? Opc::mad_hi : Opc::mul_hi)
                   : ins.has("lo") ? (mad ? Opc::mad_lo : Opc::mul_lo)
                                   : Opc::nop;
            if (mad && ins.has("cc")) d.op = Opc::mad_cc;
            if (d.op == Opc::nop) unsupported(fr, ins, "an integer multiply needs .lo, .hi or .wide");
        }
        one_dest();
        sources(1, d.type);
        return emit(d);
    }
    if (head == "shf") {
        d.op = ins.has("l") ? Opc::shf_l : Opc::shf_r;
        if (ins.has("wrap")) d.mod |= kModWrap;
        if (ins.has("clamp")) d.mod |= kModClamp;
        one_dest();
        sources(1, Ty::b32);
        return emit(d);
    }
    if (head == "add" && ins.has("cc")) {
        d.op = Opc::add_cc;
        one_dest();
        sources(1, d.type);
        return emit(d);
    }
    if (head == "sub" && ins.has("cc")) {
        d.op = Opc::sub_cc;
        one_dest();
        sources(1, d.type);
        return emit(d);
    }
    if (float_type(d.type) && head != "testp" && head != "copysign" && head != "selp" && head != "slct")
        for (const Named& n : kFloatOps)
            if (head == n.name) {
                d.op = n.op;
                one_dest();
                sources(1, d.type);
                return emit(d);
            }
    for (const Named& n : kIntOps)
        if (head == n.name) {
            d.op = n.op;
            if (head == "testp") {
                static const char* kinds[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
                for (uint8_t i = 0; i < 6; ++i)
                    if (ins.has(kinds[i])) d.sub = i;
            }
            if (head == "prmt") {
                static const char* modes[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
                for (uint8_t i = 0; i < 6; ++i)
                    if (ins.has(modes[i])) d.sub = static_cast<uint8_t>(i + 1);
            }
            if (head == "bfind" && ins.has("shiftamt")) d.sub = 1;
            one_dest();
            sources(1, head == "selp" || head == "slct" ? d.type : d.type);
            // selp's third operand is a predicate; slct's is a signed or float compare value.
            if (head == "slct") d.type2 = instruction_type(ins, 1);
            return emit(d);
        }
    return decode_control(fr, ins, d);
}

}  // namespace tmasim::model::kernel
