#include "model/state/dsmem_races.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace tmasim::model {

DsmemRaces::DsmemRaces(const ClusterAgents& agents, int64_t smem_bytes)
    : agents_(agents),
      granules_per_rank_((smem_bytes + kGranule - 1) / kGranule),
      granules_(static_cast<size_t>(agents.ranks * granules_per_rank_)),
      peer_fences_(static_cast<size_t>(agents.total())),
      own_fences_(static_cast<size_t>(agents.total())),
      known_at_peer_fence_(static_cast<size_t>(agents.total())),
      known_at_fence_(static_cast<size_t>(agents.total())) {}

std::optional<DsmemAccess> DsmemRaces::conflict(const ClusterClock& clock, const Granule& g, const DsmemAccess& a,
                                                int owner) const {
    const int rank = rank_of(a.agent);
    const DsmemAccess& w = g.write;
    // The owner's own reads of st.async bytes are the destination's AsyncWriteRegistry's.
    const bool registry_checks = w.async && !a.write && rank == owner;
    if (w.agent >= 0 && rank_of(w.agent) != rank && !registry_checks && !clock.knows(a.agent, w.agent, w.time))
        return w;
    if (!a.write) return std::nullopt;
    for (const DsmemAccess& r : g.reads)
        if (rank_of(r.agent) != rank && !clock.knows(a.agent, r.agent, r.time)) return r;
    return std::nullopt;
}

std::optional<DsmemRace> DsmemRaces::access(const ClusterClock& clock, int owner, const DsmemAccess& a,
                                            int64_t offset, int64_t bytes) {
    if (offset < 0 || bytes <= 0 || offset + bytes > granules_per_rank_ * kGranule)
        throw std::out_of_range("model: DSMEM access outside the CTA's shared memory");
    std::optional<DsmemRace> race;
    for (int64_t g = offset / kGranule; g * kGranule < offset + bytes; ++g) {
        Granule& gr = granules_.at(owner * granules_per_rank_ + g);
        if (auto other = conflict(clock, gr, a, owner)) {
            if (!race) race = DsmemRace{*other, std::max(offset, g * kGranule), 0};
            race->last_byte = std::min(offset + bytes, (g + 1) * kGranule) - 1;
        }
        if (a.write) {
            gr.write = a;
            gr.reads.clear();
            continue;
        }
        auto same = std::find_if(gr.reads.begin(), gr.reads.end(),
                                 [&](const DsmemAccess& r) { return r.agent == a.agent; });
        if (same != gr.reads.end())
            *same = a;
        else
            gr.reads.push_back(a);
    }
    return race;
}

void DsmemRaces::async_write(int owner, const DsmemAccess& access, int64_t offset, int64_t bytes) {
    for (int64_t g = offset / kGranule; g * kGranule < offset + bytes && g < granules_per_rank_; ++g) {
        Granule& gr = granules_.at(owner * granules_per_rank_ + g);
        gr.write = access;
        gr.reads.clear();
    }
}

void DsmemRaces::proxy_fence(const ClusterClock& clock, int agent, uint32_t time, bool covers_peers,
                             bool covers_own) {
    if (covers_peers) {
        peer_fences_.at(agent).push_back(time);
        known_at_peer_fence_.at(agent) = clock.snapshot(agent);
    }
    if (covers_own) {
        own_fences_.at(agent).push_back(time);
        known_at_fence_.at(agent) = clock.snapshot(agent);
    }
}

bool DsmemRaces::fenced(const ClusterClock& clock, int issuer, const DsmemAccess& w) const {
    const auto& wf = peer_fences_.at(w.agent);
    auto first_after = std::upper_bound(wf.begin(), wf.end(), w.time);
    if (first_after != wf.end() && clock.knows(issuer, w.agent, *first_after)) return true;
    const auto& at_fence = known_at_fence_.at(issuer);
    return at_fence && (*at_fence)[w.agent] >= w.time;
}

std::optional<RemoteProxyViolation> DsmemRaces::check_async_read(const ClusterClock& clock, int owner, int issuer,
                                                                 int64_t offset, int64_t bytes) const {
    std::optional<RemoteProxyViolation> v;
    std::set<int> writers, ops;
    for (int64_t g = offset / kGranule; g * kGranule < offset + bytes && g < granules_per_rank_; ++g) {
        const DsmemAccess& w = granules_.at(owner * granules_per_rank_ + g).write;
        // Writes by the owner's own threads are the CTA's ProxyTracker's.
        if (w.agent < 0 || rank_of(w.agent) == owner || fenced(clock, issuer, w)) continue;
        if (!v) v = RemoteProxyViolation{std::max(offset, g * kGranule), 0, {}, {}};
        v->last_byte = std::min(offset + bytes, (g + 1) * kGranule) - 1;
        writers.insert(w.agent);
        ops.insert(w.op);
    }
    if (v) {
        v->writers.assign(writers.begin(), writers.end());
        v->ops.assign(ops.begin(), ops.end());
    }
    return v;
}

bool DsmemRaces::access_fenced(const ClusterClock& clock, int owner, int issuer, const DsmemAccess& a) const {
    // (a) the accessor's first covering fence after the access, learned by the issuer.
    const auto& af = rank_of(a.agent) == owner ? own_fences_.at(a.agent) : peer_fences_.at(a.agent);
    auto first_after = std::upper_bound(af.begin(), af.end(), a.time);
    if (first_after != af.end() && clock.knows(issuer, a.agent, *first_after)) return true;
    // (b) the issuer's latest fence covering the owner's bytes, made while it knew the access.
    const auto& at_fence = rank_of(issuer) == owner ? known_at_fence_.at(issuer) : known_at_peer_fence_.at(issuer);
    return at_fence && (*at_fence)[a.agent] >= a.time;
}

std::optional<AsyncOverwrite> DsmemRaces::check_async_write(const ClusterClock& clock, int owner, int issuer,
                                                            int64_t offset, int64_t bytes) const {
    const bool own_copy = rank_of(issuer) == owner;
    std::optional<AsyncOverwrite> out;
    const auto judge = [&](const DsmemAccess& a, int64_t g) {
        // Async writes (copies, deliveries) are the async proxy's own; the owner's accesses of
        // its own bytes before its own copy are its CTA's business.
        if (a.agent < 0 || agents_.kind(a.agent) != ClusterAgents::Kind::thread) return false;
        if (own_copy && rank_of(a.agent) == owner) return false;
        const bool ordered = clock.knows(issuer, a.agent, a.time);
        if (ordered && access_fenced(clock, owner, issuer, a)) return false;
        const int64_t first = std::max(offset, g * kGranule), last = std::min(offset + bytes, (g + 1) * kGranule) - 1;
        if (!out) out = AsyncOverwrite{a, ordered, first, last};
        else if (out->earlier.agent == a.agent && out->earlier.op == a.op && out->last_byte == first - 1)
            out->last_byte = last;
        return true;
    };
    for (int64_t g = offset / kGranule; g * kGranule < offset + bytes && g < granules_per_rank_; ++g) {
        const Granule& gr = granules_.at(owner * granules_per_rank_ + g);
        if (judge(gr.write, g)) continue;
        for (const DsmemAccess& r : gr.reads)
            if (judge(r, g)) break;
    }
    return out;
}

}  // namespace tmasim::model
