#include "model/sm/cluster_multicast.h"

#include <stdexcept>

#include <fmt/format.h>

#include "model/sm/barrier_storage.h"
#include "model/sm/cluster.h"
#include "model/sm/cluster_fabric.h"
#include "model/state/cluster_mask.h"
#include "model/core/hazard_rules.h"
#include "model/core/op_text.h"
#include "model/copy/request_bytes.h"
#include "model/sm/shared_race_check.h"
#include "model/core/sim_time.h"

namespace tmasim::model {

namespace {

std::string list(const std::vector<int>& v) {
    std::string out;
    for (int x : v) out += (out.empty() ? "" : ", ") + std::to_string(x);
    return out;
}

// The one fetch's latency, leaving the lines resident as the engine would.
int64_t fetch_latency(CtaModule& cta, const TmaRequest& r) {
    bool resident = true;
    for (const auto& [first, last] : RequestBytes(r, cta.run().global.tensor(r.tensor)).residency_ranges())
        resident = cta.run().global.touch(r.tensor, first, last) && resident;
    const TimingParams& tp = cta.run().timing;
    return whole_cycles(resident ? tp.tma_latency_l2_cycles : tp.tma_latency_hbm_cycles);
}

// Registers the destination's copy in its AsyncWriteRegistry, chunk by chunk as a load
// credits its barrier (CtaModule::register_tma_landing, as for a load into its own CTA).
void register_delivery(Cluster& cluster, CtaModule& dest, TmaRequest& d, int barrier) {
    d.barrier = barrier;
    const auto [first, last] = RequestBytes(d, dest.run().global.tensor(d.tensor)).smem_span();
    // Peers' accesses of the bytes race with the delivery until they learn its phase.
    d.cluster_time = cluster.tma_write_issued(dest, barrier, d.op->id, first, last - first + 1);
    d.chunks = dest.register_tma_landing(barrier, d.thread, d.op->id, first, last, d.bytes);
}

}  // namespace

void ClusterMulticast::issue(CtaModule& issuer, const Op& op, TmaRequest r, const std::string& buffer, int64_t base,
                             int64_t mask, int barrier) {
    Cluster* cluster = cluster_of(issuer);
    if (!cluster) throw std::logic_error("model: a multicast load in a run built without a cluster fabric");
    const ClusterMask m = decode_cta_mask(mask, cluster->size());
    if (!m.outside.empty())
        issuer.hazard_once(op, r.site, "multicast.mask_outside_cluster",
                           HazardRules::message("multicast.mask_outside_cluster",
                                                fmt::format("{}: ctaMask {:#x} sets bits {} but the cluster has {} "
                                                            "CTA{} (ranks 0-{}); those bits name no CTA and are dropped",
                                                            op_title(op), mask, list(m.outside), cluster->size(),
                                                            cluster->size() == 1 ? "" : "s", cluster->size() - 1)),
                           {{"mask", std::to_string(mask)}, {"outside_bits", list(m.outside)}});
    const int64_t latency = m.ranks.empty() ? 0 : fetch_latency(issuer, r);
    for (int rank : m.ranks) {
        if (!cluster->enter_peer(issuer, op, r.site, r.thread, rank)) continue;
        CtaModule& dest = cluster->at_rank(rank);
        if (!cluster->init_published(issuer, op, r.site, r.thread, rank, barrier) &&
            !dest.barriers().at(barrier).state.live())
            continue;
        // complete_tx is .release.cluster (C21): the destination's waiters learn what the
        // issuing thread knew, its use of their memory included. Joined into the phase
        // current at issue, which is where the bytes land unless that phase completes
        // without them (an early pass the destination's own race check reports).
        if (cluster->tracking())
            cluster->release_into_barrier(rank, barrier, cluster->clock().snapshot(cluster->agent(issuer, r.thread)));
        // The delivery changes bytes the destination's async-proxy reads (a wgmma operand,
        // a store's source) may still read (C17).
        const auto [first, last] = RequestBytes(r, issuer.run().global.tensor(r.tensor)).smem_span();
        if (&dest == &issuer) {
            SharedRaceCheck races(issuer, op, buffer, base);
            races.pending_reads(r.site, r.thread, first, last - first + 1);
            races.async_proxy_write(r.site, r.thread, first, last - first + 1);
            races.async_write_issue(r.site, r.thread, first, last - first + 1);
        } else {
            cluster->peer_write_pending_reads(issuer, op, r.site, r.thread, rank, buffer, base, first,
                                              last - first + 1);
            dest.shared_accesses().mark_filled(first, last - first + 1);
            check_live_barrier_bytes(issuer, op, r.site, r.thread, first, last - first + 1, "issues an async write of",
                                     buffer, base, &dest);  // A11, in the destination
        }
        // Generic accesses of those bytes by other CTAs (the destination's own, for a peer)
        // before the issue: ordered, with a proxy fence on the path (B12).
        cluster->async_write_issue(issuer, op, r.site, r.thread, rank, buffer, base, first, last - first + 1);
        TmaRequest d = r;
        d.site.cta = dest.index();
        register_delivery(*cluster, dest, d, barrier);
        dest.engine().submit(std::move(d), latency);
    }
}

}  // namespace tmasim::model
