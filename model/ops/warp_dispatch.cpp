// The model's one dispatch on the op table: WarpProcess::exec runs an op by its family
// (scenarios/op_table.h). The switch has no default, so a family without a case here is a
// compiler error (-Werror=switch). The families' handlers sit beside it on this floor.
#include <map>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "model/core/sim_time.h"
#include "model/ops/barrier_costs.h"
#include "model/ops/cluster_warp_ops.h"
#include "model/ops/copy_issuer.h"
#include "model/ops/element_compute.h"
#include "model/ops/layout_warp_ops.h"
#include "model/ops/snapshot_op.h"
#include "model/ops/tensormap_ops.h"
#include "model/ops/thread_access.h"
#include "model/ops/wgmma_warp_ops.h"
#include "model/sm/cp_async_unit.h"
#include "model/sm/cta_module.h"
#include "model/sm/warp_process.h"

namespace tmasim::model {

namespace {

// Runs a case of exec in a frame of its own. exec's frame sits on the warp's coroutine stack
// through every wait of every op (a warp blocks inside it), and at 132 CTAs the lines that
// frame spans are cold again when the wait returns; the cases with bulky locals (a copy
// issuer, detail maps) inlined made it 208 bytes.
template <class Body>
[[gnu::noinline]] bool out_of_line(const Body& body) {
    return body();
}

}  // namespace

bool WarpProcess::exec(const Op& op) {
    const OpLanes& op_lanes = lanes_of(op);
    const std::vector<int>& lanes = op_lanes.lanes;
    if (lanes.empty()) return false;
    const TimingParams& tp = cta_.run().timing;
    const std::vector<int>& ev = op_lanes.events;
    // The kernel picks a predicate's threads with a vote and a branch before the op itself;
    // a global load in any branch forms its address there.
    spend(cta_.run().selection_cycles(op));
    switch (op_family(op.kind)) {
        case OpFamily::barrier:
            if (!op.cta.empty()) {  // a peer CTA's barrier, through the cluster
                ClusterWarpOps(*this).exec(op, lanes);
                return true;
            }
            emit(op, ev, EventKind::issue);
            op_barrier(op, lanes);
            spend(local_barrier_cycles(op.kind, tp));
            emit(op, ev, EventKind::complete);
            return true;
        case OpFamily::barrier_wait: op_wait(op, lanes); return true;
        case OpFamily::cta_sync: op_sync(op); return true;
        case OpFamily::named_barrier: op_named_barrier(op, lanes); return true;
        case OpFamily::fence:
        case OpFamily::cluster_barrier:
        case OpFamily::st_async: ClusterWarpOps(*this).exec(op, lanes); return true;
        case OpFamily::async_copy: return out_of_line([&] {
            emit(op, ev, EventKind::issue);
            CopyIssuer issuer(cta_, op, env_);
            for (int l : lanes) issuer.issue(site(op, l), thread(l));
            double cost = CopyIssuer::issue_cycles(op.kind, tp);
            // The first tensor op on a map in this CTA also fetches its descriptor, and so
            // does the first after a write of a map in global memory (a new descriptor key).
            if (!op.map.empty() && cta_.first_use_of_map(cta_.run().tensormaps.descriptor_key(op.map)))
                cost += tp.tensormap_fetch_cycles;
            spend(cost);
            emit(op, ev, EventKind::complete);
            return true;
        });
        case OpFamily::bulk_group:
            if (op_has(op.kind, kWait)) {
                op_bulk_wait(op, lanes);
                return true;
            }
            emit(op, ev, EventKind::issue);
            for (int l : lanes) cta_.groups().commit(thread(l));
            spend(tp.bulk_commit_cycles);
            emit(op, ev, EventKind::complete);
            return true;
        case OpFamily::per_thread: return out_of_line([&] {
            if (!op.cta.empty()) {  // a peer CTA's shared memory (DSMEM)
                ClusterWarpOps(*this).exec(op, lanes);
                return true;
            }
            // The detail (bank wavefronts, L2 hit) is known before the issue event.
            std::map<std::string, std::string> detail;
            const double cost = per_thread_op(op, lanes, ev, detail);
            emit(op, ev, EventKind::issue, detail);
            spend(cost);
            emit(op, ev, EventKind::complete, detail);
            return true;
        });
        case OpFamily::snapshot: return out_of_line([&] {
            // The read happens at the issue instant: the image holds the bytes landed by then.
            const double cost = SnapshotOp::take(cta_, op, env_, warp_, lanes.front(), site(op, lanes.front()));
            emit(op, ev, EventKind::issue);
            spend(cost);
            emit(op, ev, EventKind::complete);
            return true;
        });
        case OpFamily::cp_async: return out_of_line([&] {
            if (op_has(op.kind, kWait)) {
                op_cp_wait(op, lanes);
                return true;
            }
            emit(op, ev, EventKind::issue);
            double cost = tp.issue_cycles;  // commit_group: 2 cycles on the H200 (op_durations.py: n=27), not an LDGSTS
            if (op.kind == OpKind::cp_async) {
                std::map<std::string, std::string> unused;
                cost = per_thread_op(op, lanes, ev, unused);
            } else if (op.kind == OpKind::cp_async_mbarrier_arrive) {
                op_cp_arrive(op, lanes);
                cost = tp.cp_async_arrive_cycles;
            } else {
                for (int l : lanes) cta_.cp_groups().commit(thread(l));
            }
            spend(cost);
            emit(op, ev, EventKind::complete);
            return true;
        });
        case OpFamily::compute: return out_of_line([&] {
            emit(op, ev, EventKind::issue);
            int64_t per_lane = ElementCompute::apply(cta_, op, lanes, env_, warp_, site(op, ev.front()));
            spend(tp.compute_base_cycles + per_lane * tp.compute_cycles_per_element);
            emit(op, ev, EventKind::complete);
            return true;
        });
        case OpFamily::loop: return false;  // exec_ops runs a loop's body; the loop itself is no op instance
        case OpFamily::tensormap: TensorMapWarpOps(*this).exec(op, lanes); return true;
        case OpFamily::wgmma: WgmmaWarpOps(*this).exec(op, lanes); return true;
        case OpFamily::layout: LayoutWarpOps(*this).exec(op); return true;
        case OpFamily::kernel_memory:  // only a kernel's PTX has these; the PTX front end runs them
            throw std::logic_error(fmt::format("model: {} is a kernel instruction, not a program op", op.display()));
    }
    return false;
}

void WarpProcess::op_barrier(const Op& op, const std::vector<int>& lanes) {
    using A = CtaModule::BarrierAction;
    const int b = barrier_index(op);
    for (int l : lanes) {
        const EventSite s = site(op, l);
        const int t = thread(l);
        if (op.kind == OpKind::mbarrier_init) {
            cta_.barrier_action(b, A::init, eval(op.count, 1), t, op, s);
        } else if (op.kind == OpKind::mbarrier_inval) {
            cta_.barrier_action(b, A::inval, 0, t, op, s);
        } else if (op.kind == OpKind::mbarrier_arrive) {
            cta_.barrier_action(b, A::arrive, eval(op.count, 1), t, op, s);
        } else if (op.kind == OpKind::mbarrier_expect_tx) {
            cta_.barrier_action(b, A::expect_tx, eval(op.bytes, 0), t, op, s);
        } else if (cta_.barrier_action(b, A::expect_tx, eval(op.bytes, 0), t, op, s)) {
            // mbarrier.arrive_expect_tx: expect first, then arrive(1): the arrival must not
            // complete the phase before the bytes are accounted for (A5).
            cta_.barrier_action(b, A::arrive, 1, t, op, s);
        }
    }
}

void WarpProcess::op_cp_arrive(const Op& op, const std::vector<int>& lanes) {
    cp_arrive(op, lanes, barrier_index(op), op.noinc);
}

void WarpProcess::cp_arrive(const Op& op, const std::vector<int>& lanes, int b, bool noinc) {
    using A = CtaModule::BarrierAction;
    for (int l : lanes) {
        const EventSite s = site(op, l);
        const int t = thread(l);
        // Default form: pending += 1 now, the arrive later (net 0). .noinc: the init count
        // must include this arrival (C20).
        if (!noinc && !cta_.barrier_action(b, A::increment_pending, 1, t, op, s)) continue;
        cta_.async_writes().attach_barrier(t, b);
        cta_.cp_unit().submit_arrive(op, s, t, b);
    }
}

double WarpProcess::per_thread_op(const Op& op, const std::vector<int>& lanes, const std::vector<int>& ev,
                                  std::map<std::string, std::string>& detail) {
    ThreadAccess access(cta_, op, env_, warp_, site(op, ev.front()));
    if (!op.buffer.empty()) return access.shared_access(lanes, detail);                        // shared.load/store
    if (op_family(op.kind) == OpFamily::per_thread) return access.global_access(lanes, detail);  // global.load
    return access.cp_async(lanes);
}

}  // namespace tmasim::model
