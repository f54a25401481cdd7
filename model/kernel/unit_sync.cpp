// CTA barriers (bar.sync / barrier.sync / bar.arrive), fences and the cluster barrier of a
// kernel: the same CtaSync, NamedBarriers, proxy tracker and cluster barrier the op scenarios'
// sync, bar.sync, fence.* and cluster.* use (WarpProcess::op_sync, named_barrier,
// ClusterWarpOps).
#include <fmt/format.h>

#include "model/kernel/unit_families.h"
#include "model/ops/cluster_warp_ops.h"
#include "model/sm/cta_module.h"
#include "model/sm/warp_process.h"

namespace tmasim::model::kernel {

void unit_bar_sync(UnitCall& c) {
    const ptx::Instruction& ins = c.ins();
    if (ins.has("red"))
        throw std::out_of_range("bar.red (a barrier with a reduction: __syncthreads_count/and/or) is not modelled");
    // A barrier counts threads; the model's warps arrive whole. A warp whose lanes reach it on
    // different paths would need those paths run interleaved (independent thread scheduling),
    // which the model does not do: it refuses rather than hang or pass wrongly.
    const uint32_t alive = c.kw.alive_mask();
    if ((c.exec & alive) != alive)
        throw std::out_of_range(fmt::format("`{}` reached by lanes {:#x} of warp {} while its lanes {:#x} are on another "
                                            "path; the model runs a diverged warp's paths one after another", ins.opcode,
                                            c.exec, c.kw.warp().warp(), alive & ~c.exec));
    WarpProcess& w = c.kw.warp();
    c.kw.note_visible_action();
    if (c.op.kind == OpKind::sync) {
        w.op_sync(c.op);
        return;
    }
    const int l0 = c.lanes.front();
    const int id = static_cast<int>(c.value(0, l0));
    const int64_t count = c.u.operands.size() > 1 ? static_cast<int64_t>(c.value(1, l0)) : c.kw.cta().num_threads();
    w.named_barrier(c.op, c.lanes, c.event_lanes(), id, count);
}

void unit_fence(UnitCall& c) {
    c.kw.note_visible_action();
    if (c.op.kind == OpKind::fence_memory) {
        // fence.sc / fence.acq_rel / membar: the model's memory is sequentially consistent, and
        // its happens-before comes from barriers and mbarriers; the fence costs its issue.
        c.emit(EventKind::issue);
        c.spend(c.kw.cta().run().timing.issue_cycles);
        c.emit(EventKind::complete);
        return;
    }
    ClusterWarpOps(c.kw.warp()).exec(c.op, c.lanes);
}

void unit_cluster_barrier(UnitCall& c) {
    c.kw.note_visible_action();
    ClusterWarpOps(c.kw.warp()).exec(c.op, c.lanes);
}

}  // namespace tmasim::model::kernel
