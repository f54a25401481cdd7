#include "model/sm/cluster.h"

#include <algorithm>

#include <fmt/format.h>

#include "model/core/hazard_rules.h"
#include "model/core/op_text.h"
#include "model/core/sim_time.h"
#include "model/sm/barrier_storage.h"

namespace tmasim::model {

namespace {
constexpr int64_t kPhasesKept = 4;  // older phases' releases can no longer be observed (A8)

template <typename Map>
void prune_before(Map& m, int64_t keep_from) {
    m.erase(m.begin(), m.lower_bound(keep_from));
}
}  // namespace

Cluster::Cluster(RunContext& run, int index, std::vector<CtaModule*> ctas)
    : run_(run),
      index_(index),
      first_cta_(ctas.at(0)->index()),
      block_(run.scenario.launch.block),
      ctas_(std::move(ctas)),
      // A kernel's barriers are met as it runs: the clocks keep a slot for each it may use.
      agents_{size(), block_, run.kernel ? RunContext::kKernelBarrierSlots : ctas_.at(0)->barriers().size()},
      clock_(agents_.total()),
      barrier_(size() * block_),
      races_(ClusterAgents{size() > 1 ? size() : 0, block_, agents_.barriers},
             static_cast<int64_t>(ctas_.at(0)->smem_size())),
      last_waited_(size() * block_, -1),
      peer_uses_(size()),
      exit_known_(size(), ClusterClock::Clock(size() > 1 ? size() * block_ : 0, 0)),
      exited_(size(), false) {}

std::string Cluster::who(int agent) const {
    const int rank = agent_rank(agent), index = agents_.index_of(agent);
    switch (agents_.kind(agent)) {
        case ClusterAgents::Kind::tma:
            return fmt::format("the async copies completing on barrier {} of CTA {} (rank {})",
                               ctas_.at(rank)->barriers().at(index).name, first_cta_ + rank, rank);
        case ClusterAgents::Kind::cp_async:
            return fmt::format("the cp.async copies of thread {} of CTA {} (rank {})", index, first_cta_ + rank, rank);
        default: return fmt::format("thread {} of CTA {} (rank {})", index, first_cta_ + rank, rank);
    }
}

std::string Cluster::op_name(int id) const {
    const Op* o = run_.scenario.find_op(id);
    if (!o) return fmt::format("op #{}", id);
    std::string s = fmt::format("{} op #{}", to_string(o->kind), id);
    if (!o->label.empty()) s += " '" + o->label + "'";
    return s;
}

// --- The cluster barrier.

void Cluster::cluster_arrive(CtaModule& cta, const Op& op, const EventSite& site, int thread, bool relaxed,
                             int64_t at) {
    const int a = agent(cta, thread);
    const int64_t earlier = barrier_.wait_target(a);
    const ClusterBarrier::Arrival arr = barrier_.arrive(a);
    if (arr.repeated)
        cta.hazard_once(op, site, "cluster.double_arrive",
                        HazardRules::message("cluster.double_arrive",
                                             fmt::format("{}: {} arrives at the cluster barrier again without a "
                                                         "cluster.wait for its arrival in phase {}{}",
                                                         op_title(op), who(a), earlier,
                                                         arr.counted ? "" : "; the second arrival is dropped")),
                        {{"thread", std::to_string(thread)}, {"phase", std::to_string(earlier)}});
    if (arr.counted && !relaxed) {
        cta_releasing_.resize(ctas_.size());
        cta.tracker().release_into(thread, cta_releasing_.at(rank_of(cta)));
    }
    if (arr.counted && tracking()) {
        if (!relaxed) {
            cluster_releasing_.resize(clock_.agents(), 0);
            clock_.release_into(a, cluster_releasing_);
        }
        // mbarrier.init; fence.mbarrier_init.release.cluster; barrier.cluster.arrive.relaxed:
        // the restricted fence gives the relaxed arrive release semantics for the inits
        // (PTX 9.7.13.4), and nothing else.
        for (auto& [key, r] : inits_)
            if (r.agent == a && r.fence_time > r.time && r.published_phase < 0) r.published_phase = arr.phase;
    }
    if (arr.counted) latest_arrival_ = std::max(latest_arrival_, at);
    if (arr.completed) cluster_phase_completed(arr.phase);
}

void Cluster::cluster_phase_completed(int64_t phase) {
    completion_times_[phase] = std::max(now_cycles(), latest_arrival_);
    latest_arrival_ = 0;
    prune_before(completion_times_, phase - kPhasesKept + 1);
    if (!cta_releasing_.empty()) cta_released_[phase] = std::move(cta_releasing_);
    cta_releasing_.clear();
    prune_before(cta_released_, phase - kPhasesKept + 1);
    if (tracking()) {
        if (!cluster_releasing_.empty())
            cluster_released_[phase] = std::make_shared<const ClusterClock::Clock>(std::move(cluster_releasing_));
        cluster_releasing_.clear();
        prune_before(cluster_released_, phase - kPhasesKept + 1);
    }
    barrier_changed_.notify(sc_core::SC_ZERO_TIME);
}

void Cluster::cluster_waited(int agent, int64_t phase) {
    barrier_.waited(agent);
    last_waited_.at(agent) = std::max(last_waited_[agent], phase);
    auto own = cta_released_.find(phase);
    if (own != cta_released_.end() && agent < size() * block_) {
        const int rank = agent / block_;
        if (rank < static_cast<int>(own->second.size()))
            ctas_.at(rank)->tracker().acquire(agent % block_, own->second[rank]);
    }
    if (!tracking()) return;
    auto it = cluster_released_.find(phase);
    if (it != cluster_released_.end()) clock_.acquire(agent, it->second);
}

int64_t Cluster::completion_time(int64_t phase) const {
    auto it = completion_times_.find(phase);
    return it == completion_times_.end() ? now_cycles() : it->second;
}

// --- Peer accesses.

bool Cluster::peer_alive(CtaModule& accessor, const Op& op, const EventSite& site, int thread, int owner) {
    if (!exited_.at(owner)) return true;
    accessor.hazard_once(op, site, "cluster.peer_exited",
                         HazardRules::message("cluster.peer_exited",
                                              fmt::format("{}: {} accesses the shared memory of CTA {} (rank {}), "
                                                          "which has already exited; the access is dropped",
                                                          op_title(op), who(agent(accessor, thread)),
                                                          first_cta_ + owner, owner)),
                         {{"thread", std::to_string(thread)}, {"rank", std::to_string(owner)}});
    return false;
}

bool Cluster::enter_peer(CtaModule& accessor, const Op& op, const EventSite& site, int thread, int owner) {
    if (!peer_alive(accessor, op, site, thread, owner)) return false;
    const int a = agent(accessor, thread);
    if (owner != rank_of(accessor) && tracking()) peer_uses_[owner][a] = PeerUse{clock_.tick(a), &op, site};
    return true;
}

void Cluster::generic_access(CtaModule& accessor, const Op& op, const EventSite& site, int thread, int owner,
                             const std::string& buffer, int64_t base, int64_t offset, int64_t bytes, bool write,
                             bool st_async) {
    if (!tracking()) return;
    const int a = agent(accessor, thread);
    const DsmemAccess access{a, clock_.tick(a), op.id, write, st_async};
    if (write && owner != rank_of(accessor))
        peer_write_pending_reads(accessor, op, site, thread, owner, buffer, base, offset, bytes);
    // A peer's generic access of a live barrier's bytes (A11); the owner's own are its CTA's.
    if (owner != rank_of(accessor))
        check_live_barrier_bytes(accessor, op, site, thread, offset, bytes, write ? "writes" : "reads", buffer, base,
                                 &at_rank(owner));
    const auto race = races_.access(clock_, owner, access, offset, bytes);
    if (!race) return;
    const DsmemAccess& e = race->earlier;
    // An async copy's bytes: the completion rule of the copy the peer has not observed.
    const ClusterAgents::Kind kind = agents_.kind(e.agent);
    const std::string rule = kind == ClusterAgents::Kind::tma        ? "race.read_before_complete"
                             : kind == ClusterAgents::Kind::cp_async ? "race.cp_async_unwaited"
                                                                     : "race.dsmem_unsynced";
    const std::string how = kind == ClusterAgents::Kind::thread
                                ? "with no cluster barrier or mbarrier release/acquire ordering the two"
                                : "and the thread has not observed its completion (a wait of that CTA, then a "
                                  "cluster barrier or mbarrier release/acquire to this thread)";
    const std::string what = fmt::format(
        "{}: {} {} {}[{}..{}] of CTA {} (rank {}), which {} {} ({}) {}", op_title(op), who(a),
        write ? "writes" : "reads", buffer, race->first_byte - base, race->last_byte - base, first_cta_ + owner, owner,
        who(e.agent), e.write ? (e.async ? "stored into by st.async" : kind == ClusterAgents::Kind::thread ? "wrote" : "write") : "read",
        op_name(e.op), how);
    accessor.hazard_once(op, site, rule, HazardRules::message(rule, what),
                         {{"buffer", buffer},
                          {"rank", std::to_string(owner)},
                          {"first_byte", std::to_string(race->first_byte - base)},
                          {"last_byte", std::to_string(race->last_byte - base)},
                          {"other_op", std::to_string(e.op)},
                          {"other_thread", std::to_string(agent_thread(e.agent))},
                          {"other_cta", std::to_string(first_cta_ + agent_rank(e.agent))}});
}

bool Cluster::init_published(CtaModule& accessor, const Op& op, const EventSite& site, int thread, int owner,
                             int barrier) {
    if (!tracking() || owner == rank_of(accessor)) return true;
    const int a = agent(accessor, thread);
    auto it = inits_.find({owner, barrier});
    if (it != inits_.end()) {
        const InitRecord& r = it->second;
        if (clock_.knows(a, r.agent, r.time)) return true;
        if (r.published_phase >= 0 && last_waited_.at(a) >= r.published_phase) return true;
    }
    const std::string name = at_rank(owner).barriers().at(barrier).name;
    const std::string why =
        it == inits_.end()
            ? "which no thread has initialised"
            : fmt::format("before its init by {} happens-before the use (neither a release by the init thread nor "
                          "fence.mbarrier_init and a relaxed arrive reached this thread through a cluster.wait)",
                          who(it->second.agent));
    accessor.hazard_once(op, site, "mbarrier.remote_before_init_published",
                         HazardRules::message("mbarrier.remote_before_init_published",
                                              fmt::format("{}: {} uses barrier {} of CTA {} (rank {}) {}", op_title(op),
                                                          who(a), name, first_cta_ + owner, owner, why)),
                         {{"barrier", name}, {"rank", std::to_string(owner)}, {"thread", std::to_string(thread)}});
    return false;
}

void Cluster::release_into_barrier(int owner, int barrier, const ClusterClock::SharedClock& known) {
    if (!tracking() || !known) return;
    BarrierOrder& o = order(owner, barrier);
    o.releasing.resize(clock_.agents(), 0);
    ClusterClock::join(o.releasing, *known);
}

void Cluster::fence_mbarrier_init(int agent) {
    if (!tracking()) return;
    const uint32_t t = clock_.tick(agent);
    for (auto& [key, r] : inits_)
        if (r.agent == agent && r.fence_time <= r.time) r.fence_time = t;
}

void Cluster::fence_proxy_async(int agent, ProxySpace space) {
    if (!tracking()) return;
    const bool covers_peers = space == ProxySpace::cluster || space == ProxySpace::all;
    const bool covers_own = space != ProxySpace::global;
    races_.proxy_fence(clock_, agent, clock_.tick(agent), covers_peers, covers_own);
}

// --- Hooks from the CTA model.

Cluster::BarrierOrder& Cluster::order(int rank, int barrier) { return orders_[{rank, barrier}]; }

void Cluster::on_barrier_action(const CtaModule& owner, int barrier, CtaModule::BarrierAction action, int thread,
                                int64_t completed_phase) {
    if (!tracking()) return;
    using A = CtaModule::BarrierAction;
    const int rank = rank_of(owner);
    if (action == A::init || action == A::inval) {
        orders_.erase({rank, barrier});
        inits_.erase({rank, barrier});
        if (action == A::init) {
            const int a = agent(owner, thread);
            inits_[{rank, barrier}] = InitRecord{a, clock_.tick(a)};
        }
        return;
    }
    // Remote arrives and st.async completions released their thread's knowledge before
    // acting; TMA and cp.async completions release no thread's.
    if (action == A::arrive) {
        BarrierOrder& o = order(rank, barrier);
        o.releasing.resize(clock_.agents(), 0);
        clock_.release_into(agent(owner, thread), o.releasing);
    }
    // A cp.async arrive publishes the thread's copies issued before it (not later ones).
    auto arrives = cp_arrives_.find(agents_.cp_async(rank, thread));
    if (action == A::async_arrive && arrives != cp_arrives_.end() && !arrives->second.empty()) {
        BarrierOrder& o = order(rank, barrier);
        o.releasing.resize(clock_.agents(), 0);
        uint32_t& slot = o.releasing[arrives->first];
        slot = std::max(slot, arrives->second.front());
        arrives->second.erase(arrives->second.begin());
    }
    if (completed_phase < 0) return;
    BarrierOrder& o = order(rank, barrier);
    if (!o.releasing.empty())
        o.released[completed_phase] = std::make_shared<const ClusterClock::Clock>(std::move(o.releasing));
    o.releasing.clear();
    prune_before(o.released, completed_phase - kPhasesKept + 1);
}

void Cluster::on_barrier_acquired(const CtaModule& owner, int barrier, int64_t phase, const std::vector<int>& threads) {
    if (!tracking()) return;
    auto o = orders_.find({rank_of(owner), barrier});
    if (o == orders_.end()) return;
    auto it = o->second.released.find(phase);
    if (it == o->second.released.end()) return;
    for (int t : threads) clock_.acquire(agent(owner, t), it->second);
}

void Cluster::on_cta_sync(const CtaModule& cta, const std::vector<int>& threads) {
    if (!tracking()) return;
    std::vector<int> agents;
    for (int t : threads) agents.push_back(agent(cta, t));
    clock_.sync(agents);
}

void Cluster::on_warp_exit(CtaModule& cta, int warp) {
    const int rank = rank_of(cta);
    bool completed = false;
    for (int t = warp * 32; t < std::min(block_, warp * 32 + 32); ++t) {
        const int a = agent(cta, t);
        if (tracking()) clock_.release_into(a, exit_known_[rank]);
        completed = barrier_.exit(a) || completed;
    }
    if (completed) cluster_phase_completed(barrier_.phase() - 1);
    barrier_changed_.notify(sc_core::SC_ZERO_TIME);
    if (cta.all_warps_finished()) cta_exited(rank);
}

void Cluster::cta_exited(int rank) {
    // A CTA's shared memory goes away with it: every peer's use of it must happen-before
    // the exit of one of its threads (CUDA PG, distributed shared memory).
    for (const auto& [a, use] : peer_uses_[rank]) {
        if (exit_known_[rank][a] >= use.time) continue;
        CtaModule& accessor = at_rank(agent_rank(a));
        accessor.hazard_once(*use.op, use.site, "cluster.peer_exited",
                             HazardRules::message("cluster.peer_exited",
                                                  fmt::format("{}: CTA {} (rank {}) exits, but {}'s use of its shared "
                                                              "memory by this op is not ordered before the exit",
                                                              op_title(*use.op), first_cta_ + rank, rank, who(a))),
                             {{"thread", std::to_string(agent_thread(a))}, {"rank", std::to_string(rank)}});
    }
    peer_uses_[rank].clear();
    exited_[rank] = true;
}

void Cluster::check_async_read(CtaModule& cta, const Op& op, const EventSite& site, int thread,
                               const std::string& buffer, int64_t base, int64_t first, int64_t last) {
    if (!tracking()) return;
    const auto v = races_.check_async_read(clock_, rank_of(cta), agent(cta, thread), first, last - first + 1);
    if (!v) return;
    std::string writers, ops;
    for (int w : v->writers) writers += (writers.empty() ? "" : ", ") + who(w);
    for (int o : v->ops) ops += (ops.empty() ? "" : "; ") + op_name(o);
    const int64_t lo = v->first_byte - base, hi = v->last_byte - base;
    cta.hazard(op, site, "proxy.generic_to_async",
               HazardRules::message("proxy.generic_to_async",
                                    fmt::format("{} reads {}[{}..{}], written into this CTA by generic stores of {} "
                                                "({}) with no proxy fence covering them on the causality path (the "
                                                "writer's fence.proxy.async needs space cluster or all; a fence of "
                                                "this thread must come after it learned the writes)",
                                                op_title(op), buffer, lo, hi, writers, ops)),
               {{"buffer", buffer}, {"first_byte", std::to_string(lo)}, {"last_byte", std::to_string(hi)}});
}

}  // namespace tmasim::model
