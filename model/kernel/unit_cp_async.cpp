// cp.async (LDGSTS) of a kernel: each lane's copy resolved from its registers and run by the
// op scenarios' ThreadAccess::cp_async_copies (the thread's cp.async agent, its groups, the
// race checks, the CpAsyncUnit's timing); commit_group, wait_group / wait_all and
// cp.async.mbarrier.arrive as the op scenarios run them.
#include <fmt/format.h>

#include "model/kernel/kernel_barriers.h"
#include "model/kernel/unit_families.h"
#include "model/ops/thread_access.h"
#include "model/sm/cta_module.h"
#include "model/sm/warp_process.h"

namespace tmasim::model::kernel {
namespace {

const Expr::IntEnv kNoVariables;

// Whether operand i of the instruction is a predicate register (cp.async's ignore-src form).
bool is_predicate(const UnitCall& c, size_t i) {
    const ptx::Instruction& ins = c.ins();
    if (i >= ins.operands.size() || ins.operands[i].kind != ptx::Operand::Kind::reg) return false;
    const int r = ins.operands[i].reg;
    return r >= 0 && static_cast<size_t>(r) < c.u.fn->registers.size() && c.u.fn->registers[static_cast<size_t>(r)].type == ".pred";
}

void copies(UnitCall& c) {
    // cp.async.ca|cg.shared{::cta}.global [dst], [src], cp-size{, src-size | , ignore-src}{, policy}
    CtaModule& cta = c.kw.cta();
    std::vector<CpAsyncArgs> args;
    for (int l : c.lanes) {
        CpAsyncArgs a;
        a.lane = l;
        a.size = static_cast<int64_t>(c.value(2, l) & 0xffffffffu);
        a.src_size = a.size;
        // The optional src-size (or ignore-src predicate) comes before a cache policy.
        const size_t given = c.u.operands.size() - (c.ins().has("L2::cache_hint") ? 1 : 0);
        if (given > 3 && c.operand(3).kind == UnitOperand::Kind::value) {
            if (is_predicate(c, 3)) a.src_size = (c.value(3, l) & 1) ? 0 : a.size;
            else a.src_size = static_cast<int64_t>(c.value(3, l) & 0xffffffffu);
        }
        if (a.size != 4 && a.size != 8 && a.size != 16)
            throw std::out_of_range(fmt::format("cp.async of {} bytes; allowed: 4, 8, 16 (PTX 9.7.9.25.3)", a.size));
        if (c.op.cache == "cg" && a.size != 16) throw std::out_of_range("cp.async.cg copies 16 bytes only");
        if (a.src_size < 0 || a.src_size > a.size)
            throw std::out_of_range(fmt::format("cp.async src-size {} outside 0..{}", a.src_size, a.size));
        const MemPlace dst = c.place(c.address(0, l), l, a.size, 0);
        if (dst.kind != MemPlace::Kind::shared) throw std::out_of_range("cp.async into shared memory of another CTA");
        const MemPlace src = c.place(c.address(1, l), l, std::max<int64_t>(a.src_size, 1), 1);
        if (src.kind != MemPlace::Kind::tensor) throw std::out_of_range("cp.async from global memory outside the scenario's tensors");
        if (dst.offset % a.size != 0 || src.offset % a.size != 0)
            throw std::out_of_range(fmt::format("cp.async of {} bytes from offset {} to shared offset {}: both must be "
                                                "{}-byte aligned", a.size, src.offset, dst.offset, a.size));
        a.to = dst.offset;
        a.tensor = src.tensor;
        a.from = src.offset;
        args.push_back(std::move(a));
    }
    const auto [buffer, base] = c.buffer_at(args.front().to);
    ThreadAccess access(cta, c.op, kNoVariables, c.kw.warp().warp(), c.site(c.lanes.front()));
    c.emit(EventKind::issue);
    const double cost = access.cp_async_copies(args, buffer, base);
    c.spend(cost);
    c.emit(EventKind::complete);
}

}  // namespace

void unit_cp_async(UnitCall& c) {
    CtaModule& cta = c.kw.cta();
    WarpProcess& w = c.kw.warp();
    c.kw.note_visible_action();
    switch (c.op.kind) {
        case OpKind::cp_async: return copies(c);
        case OpKind::cp_async_commit_group:
            c.emit(EventKind::issue);
            for (int l : c.lanes) cta.cp_groups().commit(c.thread(l));
            c.spend(cta.run().timing.issue_cycles);
            c.emit(EventKind::complete);
            return;
        case OpKind::cp_async_wait_group:
            return w.cp_wait(c.op, c.lanes, c.event_lanes(), static_cast<int64_t>(c.value(0, c.lanes.front())));
        case OpKind::cp_async_wait_all: return w.cp_wait(c.op, c.lanes, c.event_lanes(), 0);
        case OpKind::cp_async_mbarrier_arrive: {
            const int l0 = c.lanes.front();
            const MemPlace p = c.place(c.address(0, l0), l0, 8);
            if (p.kind != MemPlace::Kind::shared) throw std::out_of_range("cp.async.mbarrier.arrive on another CTA's barrier");
            const int b = barrier_at(c.kw.image(), cta, p.offset);
            c.emit(EventKind::issue);
            w.cp_arrive(c.op, c.lanes, b, c.op.noinc);
            c.spend(cta.run().timing.cp_async_arrive_cycles);
            c.emit(EventKind::complete);
            return;
        }
        default: throw std::logic_error(fmt::format("model: {} in the cp.async family", c.op.display()));
    }
}

}  // namespace tmasim::model::kernel
