// Emitters for the cluster ops: mbarrier ops on a peer CTA's barrier, the cluster barrier,
// st.async, fence.proxy.async by state space and the kernel's closing cluster barrier.
// DSMEM shared.load/store are in kernel_writer_thread_ops.cpp, multicast loads with the
// other TMA loads in kernel_writer_ops.cpp; all of them name a peer through peer_addr().
#include <fmt/format.h>

#include "device/emit/kernel_writer.h"
#include "scenarios/enums.h"

namespace tmasim::device {

bool KernelWriter::cluster_launch() const { return s_.launch.cluster_size() > 1; }

bool KernelWriter::uses_cluster_barrier() const {
    if (cluster_launch()) return true;
    for (const Op* op : s_.all_ops())
        if (op->kind == OpKind::cluster_arrive || op->kind == OpKind::cluster_wait ||
            op->kind == OpKind::cluster_sync)
            return true;
    return false;
}

// mapa: the address in the CTA of rank `rank` (an expression that may use the thread's
// tid, lane and warp) that corresponds to this CTA's shared address `local`.
std::string KernelWriter::peer_addr(const std::string& local, const Op& op, const Expr& rank,
                                    const char* key) const {
    return fmt::format("mapa_shared_cluster_u32({}, (unsigned){})", local, int_expr(rank, op, key));
}

// mbarrier.arrive / expect_tx / arrive_expect_tx with `cta:`: the barrier at the same
// offset in that rank's shared memory, through its shared::cluster address. A remote
// arrive has release.cluster semantics and returns no state (PTX 9.7.13.15.11-13).
void KernelWriter::emit_remote_mbarrier(const Op& op) {
    line(fmt::format("const unsigned peer_bar = {};", peer_addr(barrier_addr(op.barrier, op).addr, op, op.cta, "cta")));
    if (op.kind == OpKind::mbarrier_arrive)
        line(fmt::format("mbarrier_arrive_release_cluster_shared_cluster_b64(peer_bar, (unsigned){});",
                         op.count.empty() ? std::string("1") : int_expr(op.count, op, "count")));
    else if (op.kind == OpKind::mbarrier_expect_tx)
        line(fmt::format("mbarrier_expect_tx_relaxed_cluster_shared_cluster_b64(peer_bar, (unsigned){});",
                         int_expr(op.bytes, op, "bytes")));
    else if (op.kind == OpKind::mbarrier_arrive_expect_tx)
        line(fmt::format("mbarrier_arrive_expect_tx_release_cluster_shared_cluster_b64(peer_bar, (unsigned){});",
                         int_expr(op.bytes, op, "bytes")));
    else
        fail(op, "only mbarrier.arrive, expect_tx and arrive_expect_tx take a remote barrier (cta)");
}

// The cluster barrier. `cluster_arrived` tracks, per thread, an arrive not yet waited on.
// barrier.cluster.wait waits for every non-exited thread of the cluster, the waiting thread
// included, and has no timeout: a wait without that arrive would never return, so the
// kernel reports it as a hang at the wait instead of executing it (see kernel_abi.cpp).
// Traced as issue/complete, as the model traces them (traces/FORMAT.md names the waits).
void KernelWriter::emit_cluster_barrier(const Op& op) {
    if (op.by.kind != Selector::Kind::all)
        fail(op, "the cluster barrier is .aligned: every thread of every CTA executes it (by: all)");
    const char* arrive = op.relaxed ? "barrier_cluster_arrive_relaxed_aligned();" : "barrier_cluster_arrive_aligned();";
    if (op.kind == OpKind::cluster_arrive) {
        line(arrive);
        line("cluster_arrived = true;");
        return;
    }
    if (op.kind == OpKind::cluster_wait) {
        open("if (!cluster_arrived)");
        line("// Nothing can complete this phase: report, leave an issue without complete, exit.");
        emit_hang_trace();
        line(fmt::format("report_cluster_wait_unarrived(status, {}, (int)blockIdx.x, warp, lane, {}, it[0], it[1], "
                         "it[2], it[3]);",
                         op.id, loop_vars_.size()));
        line("return;");
        close();
        line("barrier_cluster_wait_aligned();");
        line("cluster_arrived = false;");
        return;
    }
    line(arrive);  // cluster.sync
    line("barrier_cluster_wait_aligned();");
    line("cluster_arrived = false;");
}

// st.async: `width` bytes of 32-bit elements (every element gets `value`, as shared.store
// writes it) into element `index` of rank `cta`'s buffer, with complete_tx on the barrier
// of rank `barrier_cta` (PTX requires both in the same CTA; the model reports otherwise).
void KernelWriter::emit_st_async(const Op& op) {
    const SharedBuffer* buf = s_.find_shared(op.buffer.name);
    if (!buf) fail(op, "buffer names no shared buffer");
    if (dtype_size(buf->type) != 4) fail(op, "st.async stores 32-bit elements (f32 or i32 buffers)");
    if (op.cta.empty()) fail(op, "st.async needs cta (the destination rank)");
    const int width = access_width(op, 4);
    if (width != 4 && width != 8 && width != 16) fail(op, "st.async width must be 4, 8 or 16 bytes");
    const Expr& bar_rank = op.barrier_cta.empty() ? op.cta : op.barrier_cta;
    const std::string local = fmt::format("{} + (unsigned)({} * 4ll)", buffer_addr(op.buffer, op).addr,
                                          int_expr(op.index, op, "index"));
    line(fmt::format("const unsigned dst = {};", peer_addr(local, op, op.cta, "cta")));
    line(fmt::format("const unsigned peer_bar = {};",
                     peer_addr(barrier_addr(op.barrier, op).addr, op, bar_rank, "barrier_cta")));
    line(fmt::format("const unsigned word = {};", store_bits(op, buf->type)));
    if (width == 4)
        line("st_async_shared_cluster_mbarrier_complete_tx_bytes_b32(dst, word, peer_bar);");
    else if (width == 8)
        line("st_async_shared_cluster_mbarrier_complete_tx_bytes_v2_b32(dst, word, word, peer_bar);");
    else
        line("st_async_shared_cluster_mbarrier_complete_tx_bytes_v4_b32(dst, word, word, word, word, peer_bar);");
}

void KernelWriter::emit_fence_proxy_async(const Op& op) {
    switch (op.proxy_space) {
    case ProxySpace::cta: line("fence_proxy_async_shared_cta();"); return;
    case ProxySpace::cluster: line("fence_proxy_async_shared_cluster();"); return;
    case ProxySpace::global: line("fence_proxy_async_global();"); return;
    case ProxySpace::all: line("fence_proxy_async();"); return;
    }
    fail(op, "unknown fence.proxy.async state space");
}

// A CTA must not exit while a peer may still access its shared memory (DSMEM loads and
// stores, st.async, multicast writes, remote arrives: CUDA Programming Guide, distributed
// shared memory), so every CTA of a cluster launch meets the others at a cluster barrier
// after its program. An arrive the program left unwaited is this phase's arrival.
void KernelWriter::emit_cluster_epilogue() {
    if (!cluster_launch()) return;
    line("// A CTA must not exit while peers may still access its shared memory: meet the");
    line("// cluster once more (threads that timed out have exited and are not waited for).");
    line("if (!cluster_arrived) barrier_cluster_arrive_aligned();");
    line("barrier_cluster_wait_aligned();");
}

}  // namespace tmasim::device
