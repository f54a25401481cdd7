// Control flow (bra, ret, exit, trap, calls inlined at their sites), warp collectives
// (shfl, vote, match, redux, elect, activemask, bar.warp.sync) and the instructions that only
// carry hints to the hardware (prefetch, createpolicy, nanosleep, setmaxnreg, griddepcontrol).
#include <cstdint>

#include <fmt/format.h>

#include "model/kernel/decoder_impl.h"
#include "ptx/instruction_kinds.h"

namespace tmasim::model::kernel {
namespace {

bool is(const ptx::Instruction& ins, const char* head) { return ins.parts.at(0) == head; }
bool float_type_of(Ty t) { return ty_float(t) || t == Ty::f16x2 || t == Ty::bf16x2; }

}  // namespace

void Decoder::decode_control(Frame& fr, const ptx::Instruction& ins, DInst d) {
    const auto& ops = ins.operands;
    auto dst_pair = [&](const ptx::Operand& o) {
        if (o.kind == ptx::Operand::Kind::pred_pair) {
            d.dst[0] = dest(fr, ins, o.elems.at(0));
            d.dst[1] = dest(fr, ins, o.elems.at(1));
            d.ndst = 2;
        } else {
            d.dst[0] = dest(fr, ins, o);
            d.ndst = 1;
        }
    };
    if (is(ins, "bra") || is(ins, "brx")) {
        if (is(ins, "brx") || ops.size() != 1 || ops[0].kind != ptx::Operand::Kind::symbol || ops[0].label < 0)
            unsupported(fr, ins, "a branch to anything but a label");
        d.op = Opc::bra;
        fr.label_fixups.emplace_back(out_.program.code.size(), ops[0].label);
        return emit(d);
    }
    if (is(ins, "ret")) {
        if (fr.f == k_.entry) {
            d.op = Opc::exit;
        } else {
            d.op = Opc::ret_inline;
            fr.return_fixups.push_back(out_.program.code.size());
        }
        return emit(d);
    }
    if (is(ins, "exit")) {
        d.op = Opc::exit;
        return emit(d);
    }
    if (is(ins, "trap")) {
        d.op = Opc::trap;
        return emit(d);
    }
    if (is(ins, "shfl")) {
        if (!ins.has("sync")) unsupported(fr, ins, "shfl without .sync (removed on sm_70 and later)");
        d.op = Opc::shfl;
        d.sub = static_cast<uint8_t>(ins.has("up") ? ShflMode::up : ins.has("down") ? ShflMode::down
                                     : ins.has("bfly") ? ShflMode::bfly : ShflMode::idx);
        if (ops.size() != 5) unsupported(fr, ins, "shfl.sync takes d[|p], a, b, c, membermask");
        dst_pair(ops[0]);
        for (size_t i = 1; i < 5; ++i) d.src[d.nsrc++] = value(fr, ins, ops[i], Ty::b32);
        return emit(d);
    }
    if (is(ins, "vote")) {
        if (!ins.has("sync")) unsupported(fr, ins, "vote without .sync");
        d.op = Opc::vote;
        d.sub = static_cast<uint8_t>(ins.has("all") ? VoteMode::all : ins.has("any") ? VoteMode::any
                                     : ins.has("uni") ? VoteMode::uni : VoteMode::ballot);
        if (ops.size() != 3) unsupported(fr, ins, "vote.sync takes d, p, membermask");
        d.dst[0] = dest(fr, ins, ops[0]);
        d.ndst = 1;
        d.src[d.nsrc++] = value(fr, ins, ops[1], Ty::pred);
        d.src[d.nsrc++] = value(fr, ins, ops[2], Ty::b32);
        return emit(d);
    }
    if (is(ins, "match")) {
        d.op = Opc::match;
        d.sub = ins.has("all") ? 1 : 0;
        if (ops.size() != 3) unsupported(fr, ins, "match.sync takes d[|p], a, membermask");
        dst_pair(ops[0]);
        d.src[d.nsrc++] = value(fr, ins, ops[1], d.type);
        d.src[d.nsrc++] = value(fr, ins, ops[2], Ty::b32);
        return emit(d);
    }
    if (is(ins, "redux")) {
        d.op = Opc::redux;
        d.sub = static_cast<uint8_t>(ins.has("add") ? ReduxOp::add : ins.has("min") ? ReduxOp::min
                                     : ins.has("max") ? ReduxOp::max : ins.has("and") ? ReduxOp::and_
                                     : ins.has("or") ? ReduxOp::or_ : ReduxOp::xor_);
        if (ops.size() != 3 || float_type_of(d.type)) unsupported(fr, ins, "redux.sync of integers: d, a, membermask");
        d.dst[0] = dest(fr, ins, ops[0]);
        d.ndst = 1;
        d.src[d.nsrc++] = value(fr, ins, ops[1], d.type);
        d.src[d.nsrc++] = value(fr, ins, ops[2], Ty::b32);
        return emit(d);
    }
    if (is(ins, "activemask")) {
        d.op = Opc::activemask;
        d.dst[0] = dest(fr, ins, ops.at(0));
        d.ndst = 1;
        return emit(d);
    }
    if (is(ins, "elect")) {
        d.op = Opc::elect;
        if (ops.size() != 2) unsupported(fr, ins, "elect.sync takes d|p, membermask");
        dst_pair(ops[0]);
        d.src[d.nsrc++] = value(fr, ins, ops[1], Ty::b32);
        return emit(d);
    }
    if (is(ins, "bar") && ins.has("warp")) {
        d.op = Opc::bar_warp;
        d.src[d.nsrc++] = value(fr, ins, ops.at(0), Ty::b32);
        return emit(d);
    }
    if (is(ins, "nanosleep")) {
        d.op = Opc::nanosleep;
        d.src[d.nsrc++] = value(fr, ins, ops.at(0), Ty::u32);
        return emit(d);
    }
    if (is(ins, "mapa") || is(ins, "getctarank")) {
        d.op = is(ins, "mapa") ? Opc::mapa : Opc::getctarank;
        // mapa.shared::cluster maps a shared::cta address to a shared::cluster one; the generic
        // form (cooperative groups' map_shared_rank) a generic address to a generic one.
        if (!ins.has("shared::cluster") && ptx::memory_space(ins) != "") unsupported(fr, ins, "a space other than shared::cluster");
        d.dst[0] = dest(fr, ins, ops.at(0));
        d.ndst = 1;
        for (size_t i = 1; i < ops.size(); ++i) d.src[d.nsrc++] = value(fr, ins, ops[i], Ty::u32);
        return emit(d);
    }
    if (is(ins, "isspacep")) {
        d.op = Opc::isspacep;
        const std::string space = ptx::memory_space(ins);
        d.sub = static_cast<uint8_t>(space == "shared" ? ptx::Space::shared : space == "global" ? ptx::Space::global
                                     : space == "local" ? ptx::Space::local : ptx::Space::param);
        d.dst[0] = dest(fr, ins, ops.at(0));
        d.ndst = 1;
        d.src[d.nsrc++] = value(fr, ins, ops.at(1), Ty::u64);
        return emit(d);
    }
    if (is(ins, "createpolicy")) {
        // A cache-eviction policy: only the L2 reads it, and the model's L2 keeps no policy.
        d.op = Opc::createpolicy;
        d.dst[0] = dest(fr, ins, ops.at(0));
        d.ndst = 1;
        return emit(d);
    }
    if (is(ins, "setmaxnreg")) {
        d.op = Opc::setmaxnreg;
        d.src[d.nsrc++] = value(fr, ins, ops.at(0), Ty::u32);
        d.sub = ins.has("inc") ? 1 : 0;
        return emit(d);
    }
    // Hints with no effect on what a kernel computes: the model's caches take no hints.
    if (is(ins, "prefetch") || is(ins, "prefetchu") || is(ins, "griddepcontrol") || is(ins, "pmevent") ||
        is(ins, "applypriority") || is(ins, "discard")) {
        d.op = Opc::nop;
        return emit(d);
    }
    unsupported(fr, ins, "no decoder for this opcode");
}

void Decoder::decode_call(Frame& fr, const ptx::Instruction& ins, DInst d) {
    // call[.uni] [(rets),] func[, (args)]: the callee's body is inlined here; its formal params
    // and returns are the caller's argument variables, by position.
    std::vector<const ptx::Operand*> lists;
    const ptx::Operand* target = nullptr;
    for (const ptx::Operand& o : ins.operands) {
        if (o.kind == ptx::Operand::Kind::symbol && !target) target = &o;
        else if (o.kind == ptx::Operand::Kind::vector) lists.push_back(&o);
        else unsupported(fr, ins, "an indirect call or a call operand the model does not know");
    }
    if (!target) unsupported(fr, ins, "a call without a function name");
    const ptx::Operand* rets = nullptr;
    const ptx::Operand* args = nullptr;
    // A list before the name is the returns, one after it the arguments.
    for (const ptx::Operand* l : lists) (l < target ? rets : args) = l;
    const ptx::Function* callee = k_.module.find_function(target->name);
    if (!callee) unsupported(fr, ins, fmt::format("no function named {}", target->name));
    if (!callee->has_body)
        unsupported(fr, ins, fmt::format("a call of {}, which has no body in the module (printf, assert and other "
                                         "system calls are not modelled)", callee->name));
    if (inlining_.count(callee->name)) unsupported(fr, ins, fmt::format("a recursive call of {}", callee->name));
    auto it = fn_index_.find(callee);
    if (it == fn_index_.end()) unsupported(fr, ins, fmt::format("{} is not among the functions the entry reaches", callee->name));
    Frame cf;
    cf.fn = it->second;
    cf.f = callee;
    cf.depth = fr.depth + 1;
    auto bind = [&](const ptx::Operand* list, const std::vector<ptx::Param>& formals, const char* what) {
        const size_t n = list ? list->elems.size() : 0;
        if (n != formals.size())
            unsupported(fr, ins, fmt::format("{} gets {} {} but takes {}", callee->name, n, what, formals.size()));
        for (size_t i = 0; i < n; ++i) {
            const ptx::Operand& a = list->elems[i];
            int space = 0;
            if (a.kind != ptx::Operand::Kind::symbol) unsupported(fr, ins, "a call argument that is not a .param variable");
            const uint64_t at = symbol_address(fr, ins, a, space);
            if (space != static_cast<int>(ptx::Space::param) || at < kBodyParamBase)
                unsupported(fr, ins, fmt::format("call argument {} is not a .param variable of the caller", a.name));
            cf.local_of_param[formals[i].name] = static_cast<int64_t>(at - kBodyParamBase);
        }
    };
    bind(args, callee->params, "arguments");
    bind(rets, callee->returns, "returns");
    // A guarded call: the lanes whose guard is false jump past the inlined body.
    size_t skip = SIZE_MAX;
    if (d.guard >= 0) {
        DInst b = d;
        b.op = Opc::bra;
        b.guard_neg = !d.guard_neg;
        skip = out_.program.code.size();
        emit(b);
    }
    inlining_.insert(callee->name);
    emit_function(cf);
    inlining_.erase(callee->name);
    for (size_t at : cf.return_fixups) out_.program.code[at].target = pc();
    if (skip != SIZE_MAX) out_.program.code[skip].target = pc();
}

}  // namespace tmasim::model::kernel
