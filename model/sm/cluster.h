#pragma once
// One cluster of a run: the CTAs launch.cluster groups (CTA c is rank c % size of cluster
// c / size), the cluster barrier, and the happens-before the cross-CTA rules need. It routes
// peer accesses (DSMEM, remote mbarriers, st.async, multicast) to the right CTA and reports
// what breaks PTX's cluster rules (semantics.md A10, C21-C23, F31, F33):
//   race.dsmem_unsynced                  a DSMEM access races with another CTA's access;
//   mbarrier.remote_before_init_published a peer uses a barrier whose init does not
//                                        happen-before the use;
//   cluster.peer_exited                  a CTA exits while (or before) a peer uses its shared
//                                        memory;
//   cluster.double_arrive, cluster.deadlock  the cluster barrier's arrive/wait rules.
// The CTA model calls the on_* hooks for its own synchronisation (mbarrier phases, bar.sync,
// warp exits, generic accesses), so a happens-before path may run through any of them.
// Race and init tracking only runs for clusters of more than one CTA; a lone CTA's cluster
// has the barrier and nothing else.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <systemc>

#include "model/state/cluster_barrier.h"
#include "model/state/cluster_clock.h"
#include "model/sm/cta_module.h"
#include "model/state/dsmem_races.h"

namespace tmasim::model {

class Cluster {
public:
    Cluster(RunContext& run, int index, std::vector<CtaModule*> ctas);

    int index() const { return index_; }
    int size() const { return static_cast<int>(ctas_.size()); }
    int rank_of(const CtaModule& cta) const { return cta.index() - first_cta_; }
    CtaModule& at_rank(int rank) { return *ctas_.at(rank); }
    int agent(const CtaModule& cta, int thread) const { return agents_.thread(rank_of(cta), thread); }
    int agent_rank(int agent) const { return agents_.rank_of(agent); }
    // The thread of a thread or cp.async agent; -1 for a barrier's TMA completions.
    int agent_thread(int agent) const {
        return agents_.kind(agent) == ClusterAgents::Kind::tma ? -1 : agents_.index_of(agent);
    }
    bool tracking() const { return size() > 1; }
    bool exited(int rank) const { return exited_.at(rank); }

    ClusterClock& clock() { return clock_; }
    DsmemRaces& races() { return races_; }
    ClusterBarrier& barrier() { return barrier_; }
    sc_core::sc_event& barrier_changed() { return barrier_changed_; }

    // --- The cluster barrier (ClusterWarpOps drives it).
    // Arrival of `thread` of `cta`; a repeated one is reported at `site`.
    // `at`: the cycle the arrival reaches the barrier (after a .release arrive's release); the
    // phase completes, for completion_time, at the latest arrival's `at`.
    void cluster_arrive(CtaModule& cta, const Op& op, const EventSite& site, int thread, bool relaxed, int64_t at);
    // After the agent's wait passed `phase`: it acquires what the phase's arrivals released.
    void cluster_waited(int agent, int64_t phase);
    int64_t completion_time(int64_t phase) const;

    // --- Peer accesses.
    // `accessor`'s thread is about to access rank `owner`'s shared memory (a DSMEM access, a
    // remote barrier op, an st.async, a multicast): false, after reporting cluster.peer_exited,
    // when that CTA has exited. Otherwise the use is recorded for the check at the owner's
    // exit, which it must happen-before.
    bool enter_peer(CtaModule& accessor, const Op& op, const EventSite& site, int thread, int owner);
    // For what arrives later (a delivery): false, after the same report, when `owner` exited
    // in between. Records nothing: the use was recorded when it was issued.
    bool peer_alive(CtaModule& accessor, const Op& op, const EventSite& site, int thread, int owner);
    // A generic access by `accessor`'s thread to bytes of rank `owner` (its own CTA or a
    // peer), checked for races with other CTAs' accesses. `buffer` and `base` name them.
    void generic_access(CtaModule& accessor, const Op& op, const EventSite& site, int thread, int owner,
                        const std::string& buffer, int64_t base, int64_t offset, int64_t bytes, bool write,
                        bool st_async = false);
    // Whether barrier `barrier` of rank `owner` was initialised and that init happens-before
    // now for `agent` (A10). Reports mbarrier.remote_before_init_published when it is not.
    bool init_published(CtaModule& accessor, const Op& op, const EventSite& site, int thread, int owner,
                        int barrier);
    // A remote release (an arrive, an st.async's complete_tx) joins the current phase of
    // rank `owner`'s barrier with what the releasing thread knew.
    void release_into_barrier(int owner, int barrier, const ClusterClock::SharedClock& known);
    void fence_mbarrier_init(int agent);
    void fence_proxy_async(int agent, ProxySpace space);

    // --- Hooks from the CTA model.
    void on_barrier_action(const CtaModule& owner, int barrier, CtaModule::BarrierAction action, int thread,
                           int64_t completed_phase);
    void on_barrier_acquired(const CtaModule& owner, int barrier, int64_t phase, const std::vector<int>& threads);
    void on_cta_sync(const CtaModule& cta, const std::vector<int>& threads);
    void on_warp_exit(CtaModule& cta, int warp);
    // --- Async copies into a CTA's shared memory, for peers' accesses of those bytes (C17,
    // C20): writes of the owner's TMA agent of `barrier` (loads, multicast deliveries) or of
    // `thread`'s cp.async agent, recorded at issue; returns the agent's time for the landing.
    // An async-proxy write into rank `owner`'s bytes issued by `issuer`'s thread, checked before
    // tma_write_issued records it: other CTAs' generic accesses of those bytes (the owner's own,
    // for a peer's multicast) must be ordered before the issue (race.dsmem_unsynced) with a
    // proxy fence on the path (proxy.async_write_after_generic, B12).
    void async_write_issue(CtaModule& issuer, const Op& op, const EventSite& site, int thread, int owner,
                           const std::string& buffer, int64_t base, int64_t offset, int64_t bytes);
    uint32_t tma_write_issued(const CtaModule& owner, int barrier, int op, int64_t offset, int64_t bytes);
    uint32_t cp_async_issued(const CtaModule& owner, int thread, int op, int64_t offset, int64_t bytes);
    // The bytes landed: a TMA write is published with the phase of `barrier` it completes in.
    void tma_landed(const CtaModule& owner, int barrier, int op, uint32_t time, int64_t offset, int64_t bytes);
    void cp_async_landed(const CtaModule& owner, int thread, int op, uint32_t time, int64_t offset, int64_t bytes);
    // `thread`'s cp.async wait covered its copies up to its agent's `time`: it knows them.
    void cp_async_covered(const CtaModule& owner, int thread, uint32_t time);
    // cp.async.mbarrier.arrive issued: it will publish the copies issued so far.
    void cp_async_arrive_issued(const CtaModule& owner, int thread);
    // A write by `accessor`'s thread into rank `owner`'s bytes (a DSMEM store, st.async,
    // a multicast delivery) against the owner's wgmma operands still being read.
    void peer_write_pending_reads(CtaModule& accessor, const Op& op, const EventSite& site, int thread, int owner,
                                  const std::string& buffer, int64_t base, int64_t offset, int64_t bytes);
    // An async-proxy read of `cta`'s own bytes [first, last] issued by `thread`: peers'
    // generic writes there need a proxy fence on the causality path (B12).
    void check_async_read(CtaModule& cta, const Op& op, const EventSite& site, int thread,
                          const std::string& buffer, int64_t base, int64_t first, int64_t last);

    // "thread 5 of CTA 1 (rank 1)" for messages.
    std::string who(int agent) const;
    std::string op_name(int op) const;

private:
    struct BarrierOrder {
        ClusterClock::Clock releasing;                          // this phase's releases so far
        std::map<int64_t, ClusterClock::SharedClock> released;  // completed phase -> its releases
    };
    struct InitRecord {
        int agent = -1;
        uint32_t time = 0;
        uint32_t fence_time = 0;       // the init thread's first fence.mbarrier_init after it
        int64_t published_phase = -1;  // a cluster phase whose relaxed arrive carried that fence
    };
    struct PeerUse {
        uint32_t time = 0;
        const Op* op = nullptr;
        EventSite site;
    };
    BarrierOrder& order(int rank, int barrier);
    void cluster_phase_completed(int64_t phase);
    void cta_exited(int rank);

    RunContext& run_;
    int index_;
    int first_cta_;
    int block_;
    std::vector<CtaModule*> ctas_;
    ClusterAgents agents_;
    ClusterClock clock_;
    ClusterBarrier barrier_;
    DsmemRaces races_;
    sc_core::sc_event barrier_changed_;
    ClusterClock::Clock cluster_releasing_;
    std::map<int64_t, ClusterClock::SharedClock> cluster_released_;
    // The same release/acquire inside each CTA, on its proxy tracker's clocks (per rank): the
    // happens-before its intra-CTA race check (C22) sees, with or without peers.
    std::vector<VectorClock> cta_releasing_;
    std::map<int64_t, std::vector<VectorClock>> cta_released_;
    std::map<int64_t, int64_t> completion_times_;   // cluster phase -> cycle it completed
    int64_t latest_arrival_ = 0;                      // the current phase's latest arrival `at`
    std::vector<int64_t> last_waited_;              // per agent, the latest cluster phase it waited for
    std::map<std::pair<int, int>, BarrierOrder> orders_;  // (rank, barrier)
    std::map<std::pair<int, int>, InitRecord> inits_;     // (rank, barrier)
    std::vector<std::map<int, PeerUse>> peer_uses_;       // per owner rank: accessor agent -> latest use
    std::vector<ClusterClock::Clock> exit_known_;         // per rank: what its exited threads knew
    std::vector<bool> exited_;
    std::map<int, std::vector<uint32_t>> cp_arrives_;     // cp.async agent -> its arrives' times, oldest first
};

}  // namespace tmasim::model
