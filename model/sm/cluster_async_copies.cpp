// Cluster's side of the async copies into a CTA's shared memory (TMA/bulk loads, multicast
// deliveries, cp.async) and of a peer's writes into a CTA's in-flight wgmma operands: the
// bytes are writes of the owner's async agents (ClusterAgents) in DsmemRaces, published to
// the cluster the way the owner's threads learn them (semantics.md C17, C20, C21, F33).
#include "model/sm/cluster.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "model/core/hazard_rules.h"
#include "model/core/op_text.h"

namespace tmasim::model {

void Cluster::async_write_issue(CtaModule& issuer, const Op& op, const EventSite& site, int thread, int owner,
                                const std::string& buffer, int64_t base, int64_t offset, int64_t bytes) {
    if (!tracking()) return;
    const int a = agent(issuer, thread);
    const auto hit = races_.check_async_write(clock_, owner, a, offset, bytes);
    if (!hit) return;
    const DsmemAccess& e = hit->earlier;
    const std::string rule = hit->ordered ? "proxy.async_write_after_generic" : "race.dsmem_unsynced";
    const std::string how = hit->ordered ? "and no fence.proxy.async covering those bytes lies on the causality path "
                                           "between the two"
                                         : "with no cluster barrier or mbarrier release/acquire ordering the access "
                                           "before the copy";
    const std::string what = fmt::format(
        "{}: {} issues an async-proxy write of {}[{}..{}] of CTA {} (rank {}), which {} {} ({}) before it, {}",
        op_title(op), who(a), buffer, hit->first_byte - base, hit->last_byte - base, first_cta_ + owner, owner,
        who(e.agent), e.write ? (e.async ? "stored into by st.async" : "wrote") : "read", op_name(e.op), how);
    issuer.hazard_once(op, site, rule, HazardRules::message(rule, what),
                       {{"buffer", buffer},
                        {"rank", std::to_string(owner)},
                        {"first_byte", std::to_string(hit->first_byte - base)},
                        {"last_byte", std::to_string(hit->last_byte - base)},
                        {"other_op", std::to_string(e.op)},
                        {"other_thread", std::to_string(agent_thread(e.agent))},
                        {"other_cta", std::to_string(first_cta_ + agent_rank(e.agent))}});
}

uint32_t Cluster::tma_write_issued(const CtaModule& owner, int barrier, int op, int64_t offset, int64_t bytes) {
    if (!tracking()) return 0;
    const int a = agents_.tma(rank_of(owner), barrier);
    const uint32_t t = clock_.tick(a);
    races_.async_write(rank_of(owner), DsmemAccess{a, t, op, true, false}, offset, bytes);
    return t;
}

uint32_t Cluster::cp_async_issued(const CtaModule& owner, int thread, int op, int64_t offset, int64_t bytes) {
    if (!tracking()) return 0;
    const int a = agents_.cp_async(rank_of(owner), thread);
    const uint32_t t = clock_.tick(a);
    races_.async_write(rank_of(owner), DsmemAccess{a, t, op, true, false}, offset, bytes);
    return t;
}

void Cluster::tma_landed(const CtaModule& owner, int barrier, int op, uint32_t time, int64_t offset, int64_t bytes) {
    if (!tracking() || time == 0) return;
    const int a = agents_.tma(rank_of(owner), barrier);
    races_.async_write(rank_of(owner), DsmemAccess{a, time, op, true, false}, offset, bytes);
    // Released into the phase current now, before the complete_tx that may complete it:
    // its waiters learn these bytes (and no later copy of the agent's), and pass them on.
    BarrierOrder& o = order(rank_of(owner), barrier);
    o.releasing.resize(clock_.agents(), 0);
    o.releasing[a] = std::max(o.releasing[a], time);
}

void Cluster::cp_async_landed(const CtaModule& owner, int thread, int op, uint32_t time, int64_t offset,
                              int64_t bytes) {
    if (!tracking() || time == 0) return;
    races_.async_write(rank_of(owner), DsmemAccess{agents_.cp_async(rank_of(owner), thread), time, op, true, false},
                       offset, bytes);
}

void Cluster::cp_async_covered(const CtaModule& owner, int thread, uint32_t time) {
    if (!tracking() || time == 0) return;
    auto known = std::make_shared<ClusterClock::Clock>(clock_.agents(), 0);
    (*known)[agents_.cp_async(rank_of(owner), thread)] = time;
    clock_.acquire(agent(owner, thread), known);
}

void Cluster::cp_async_arrive_issued(const CtaModule& owner, int thread) {
    if (!tracking()) return;
    const int a = agents_.cp_async(rank_of(owner), thread);
    cp_arrives_[a].push_back(clock_.now(a));
}

void Cluster::peer_write_pending_reads(CtaModule& accessor, const Op& op, const EventSite& site, int thread,
                                       int owner, const std::string& buffer, int64_t base, int64_t offset,
                                       int64_t bytes) {
    if (!tracking()) return;
    const int a = agent(accessor, thread);
    const PendingReadHit h = at_rank(owner).bulk_stores().peer_write_race(a, offset, offset + bytes - 1, clock_);
    if (!h.read) return;
    const std::string what = fmt::format(
        "{}: {} writes {}[{}..{}] of CTA {} (rank {}), an operand {} of its warpgroup {} reads, before a "
        "wgmma.wait_group that retired it is ordered before the write",
        op_title(op), who(a), buffer, h.first - base, h.last - base, first_cta_ + owner, owner, op_name(h.read->op),
        h.read->group);
    accessor.hazard_once(op, site, "race.wgmma_operand_overwrite",
                         HazardRules::message("race.wgmma_operand_overwrite", what),
                         {{"buffer", buffer}, {"rank", std::to_string(owner)}, {"thread", std::to_string(thread)},
                          {"mma_op", std::to_string(h.read->op)}, {"first_byte", std::to_string(h.first - base)},
                          {"last_byte", std::to_string(h.last - base)}});
}

}  // namespace tmasim::model
