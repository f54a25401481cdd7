// mbarrier instructions of a kernel (PTX 9.7.13.15): init, inval, arrive (with expect_tx),
// expect_tx and complete_tx on the CTA's own barriers, or through shared::cluster on a peer's
// (ClusterWarpOps::remote_barrier_to, the op scenarios' remote arrive); try_wait / test_wait,
// with a phase parity or the state an arrive returned.
//
// The spin rule. A kernel waits by polling: try_wait returns false, the kernel's loop backs off
// and polls again. The model runs the first failed poll as the kernel does (false, and the
// loop goes on); when the same warp polls the same phase again having done nothing another
// thread could see in between (only ALU work, its own registers and local memory), nothing
// but the barrier can change the answer, so the poll blocks until the barrier changes. A wait
// that can never complete is then a warp blocked at its try_wait, which the hang report names.
#include <fmt/format.h>

#include "model/core/sim_time.h"
#include "model/kernel/kernel_barriers.h"
#include "model/kernel/unit_families.h"
#include "model/ops/barrier_costs.h"
#include "model/ops/cluster_warp_ops.h"
#include "model/sm/cluster.h"
#include "model/sm/cluster_fabric.h"
#include "model/sm/cta_module.h"
#include "model/sm/warp_process.h"

namespace tmasim::model::kernel {
namespace {

using A = CtaModule::BarrierAction;

// The op's operands: where the barrier's address is, and its count or tx operand.
struct BarrierOperands {
    size_t address = 0;
    int amount = -1;   // -1: none (arrive counts 1)
    bool returns_state = false;
};

BarrierOperands operands_of(const UnitCall& c) {
    const std::string& what = c.ins().parts.at(1);
    if (what == "init") return {0, 1, false};
    if (what == "inval") return {0, -1, false};
    if (what == "expect_tx" || what == "complete_tx") return {0, 1, false};
    // arrive[.expect_tx] state, [a][, count or tx]
    return {1, c.u.operands.size() > 2 ? 2 : -1, true};
}

}  // namespace

void unit_mbarrier(UnitCall& c) {
    const std::string& what = c.ins().parts.at(1);
    if (what == "arrive_drop")
        throw std::out_of_range("mbarrier.arrive_drop is not modelled (the barrier's expected count would change for "
                                "later phases)");
    const BarrierOperands ops = operands_of(c);
    CtaModule& cta = c.kw.cta();
    const TimingParams& tp = cta.run().timing;
    const int own = c.own_rank();
    const bool complete = what == "complete_tx";
    c.emit(EventKind::issue);
    std::vector<int> remote_lanes, owners;
    int remote_b = -1;
    int64_t remote_amount = 0;
    for (int l : c.lanes) {
        const MemPlace p = c.place(c.address(ops.address, l), l, 8);
        const int64_t amount = ops.amount >= 0 ? static_cast<int64_t>(c.value(static_cast<size_t>(ops.amount), l)) : 1;
        if (p.rank != own) {
            if (c.op.kind == OpKind::mbarrier_init || c.op.kind == OpKind::mbarrier_inval || complete)
                throw std::out_of_range(fmt::format("`{}` on a barrier of CTA rank {}: a peer's barrier can only be arrived on "
                                                    "or expect_tx'ed (PTX 9.7.13.15.x, semantics.md A10)", c.ins().opcode, p.rank));
            remote_b = barrier_at(c.kw.image(), cluster_of(cta)->at_rank(p.rank), p.offset);
            remote_lanes.push_back(l);
            owners.push_back(p.rank);
            remote_amount = amount;
            continue;
        }
        const int b = barrier_at(c.kw.image(), cta, p.offset);
        BarrierSlot& slot = cta.barriers().at(b);
        const int t = c.thread(l);
        const EventSite s = c.site(l);
        const int64_t phase_before = slot.state.phase();
        switch (c.op.kind) {
            case OpKind::mbarrier_init: cta.barrier_action(b, A::init, amount, t, c.op, s); break;
            case OpKind::mbarrier_inval: cta.barrier_action(b, A::inval, 0, t, c.op, s); break;
            case OpKind::mbarrier_arrive: cta.barrier_action(b, A::arrive, amount, t, c.op, s); break;
            case OpKind::mbarrier_expect_tx:
                cta.barrier_action(b, complete ? A::complete_tx : A::expect_tx, amount, t, c.op, s);
                break;
            default:  // arrive.expect_tx: expect first, then arrive(1), so the phase cannot complete before the bytes count (A5)
                if (cta.barrier_action(b, A::expect_tx, amount, t, c.op, s)) cta.barrier_action(b, A::arrive, 1, t, c.op, s);
                break;
        }
        // The state an arrive returns names the phase it arrived in (the model's own encoding;
        // only try_wait / test_wait read it).
        if (ops.returns_state && c.operand(0).kind != UnitOperand::Kind::sink) c.set(0, l, static_cast<uint64_t>(phase_before));
    }
    double cost = local_barrier_cycles(c.op.kind, tp);
    if (!remote_lanes.empty()) {
        const int64_t count = c.op.kind == OpKind::mbarrier_arrive ? remote_amount : 1;
        cost = ClusterWarpOps(c.kw.warp()).remote_barrier_to(c.op, remote_lanes, owners, remote_b, count, remote_amount);
    }
    c.kw.note_visible_action();
    c.spend(cost);
    c.emit(EventKind::complete);
}

void unit_mbarrier_wait(UnitCall& c) {
    // try_wait[.parity] p, [a], state|parity[, suspendTimeHint]; test_wait likewise.
    CtaModule& cta = c.kw.cta();
    WarpProcess& w = c.kw.warp();
    const TimingParams& tp = cta.run().timing;
    const bool parity_form = c.ins().has("parity");
    const int l0 = c.lanes.front();
    const MemPlace p = c.place(c.address(1, l0), l0, 8);
    if (p.rank != c.own_rank())
        throw std::out_of_range("a wait on another CTA's mbarrier (waits are on the CTA's own barriers: shared::cta)");
    const int b = barrier_at(c.kw.image(), cta, p.offset);
    for (int l : c.lanes)
        if (c.place(c.address(1, l), l, 8).offset != p.offset)
            throw std::out_of_range(fmt::format("the lanes of one `{}` poll different barriers (lane {} and lane {}); the model "
                                                "takes one barrier per warp instruction", c.ins().opcode, l0, l));
    BarrierSlot& slot = cta.barriers().at(b);
    const int64_t key = static_cast<int64_t>(c.value(2, l0));
    const int64_t parity = parity_form ? key & 1 : key & 1;
    auto completed = [&] {
        if (!slot.state.live()) return true;
        return parity_form ? slot.state.test_wait(parity) : slot.state.phase() > key;
    };
    c.emit(EventKind::wait_begin);
    bool done = true;
    bool blocked = false;
    if (!slot.state.live()) {
        w.report_uninit_wait(c.op, l0, slot);
    } else {
        if (parity_form) w.check_parity_alias(c.op, c.lanes, b, parity);
        done = completed();
        KernelWarp::FailedPoll& fp = c.kw.last_failed_poll();
        if (!done) {
            const bool spinning = fp.valid && fp.op == c.op.id && fp.barrier == b && fp.parity == key &&
                                  fp.actions == c.kw.visible_actions();
            if (spinning) {
                w.block_until(slot.changed, [&] { return completed(); },
                              BlockedAt{BlockedAt::Kind::mbarrier_wait, &c.op, {}, b, parity});
                done = blocked = true;
            } else {
                fp = {c.op.id, cta.index(), b, key, c.kw.visible_actions(), true};
            }
        }
        if (done) {
            fp.valid = false;
            cta.note_waited(slot.decl);
            w.observe_and_acquire(slot, b, parity, c.lanes);
        }
    }
    for (int l : c.lanes) c.set(0, l, done ? 1 : 0);
    c.spend(blocked ? tp.mbarrier_wait_resume_cycles : tp.mbarrier_wait_ready_cycles);
    c.emit(EventKind::wait_end, {{"result", done ? "1" : "0"}});
}

}  // namespace tmasim::model::kernel
