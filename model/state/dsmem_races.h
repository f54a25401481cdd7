#pragma once
// Races on shared memory between the CTAs of one cluster (distributed shared memory), and
// the proxy rule for bytes a peer wrote (semantics.md B12 with fence.proxy.async's state
// space, F33). Plain C++: the cluster model feeds it accesses, it answers with the race.
//
// Every generic access a cluster's threads make to any CTA's shared memory is recorded per
// 4-byte granule: the last write and the reads since it. An access races with an earlier one
// of a thread in another CTA when at least one of them writes and the accessing thread has
// not synchronised with it (ClusterClock): no cluster barrier, no mbarrier release/acquire,
// no st.async completion between them. Races inside one CTA are not this class's business
// (the CTA model checks those against its asynchronous writes).
//
// st.async bytes are generic writes too (PTX 9.7.9.12), but their readers in the
// destination CTA learn them through the mbarrier's complete_tx like TMA bytes, which the
// destination's AsyncWriteRegistry checks with a better rule; here they only count for
// writes after them and reads from other CTAs.
//
// Bytes an async copy (TMA/bulk load, multicast, cp.async) writes into a CTA are writes
// of that CTA's async agents (ClusterAgents): the owner's own threads are its registry's,
// a peer's access races with them until it knows the agent's time.
#include <cstdint>
#include <optional>
#include <vector>

#include "model/state/cluster_clock.h"

namespace tmasim::model {

struct DsmemAccess {
    int agent = -1;     // ClusterClock agent
    uint32_t time = 0;  // the agent's clock at the access
    int op = -1;
    bool write = false;
    bool async = false;  // an st.async write
};

struct DsmemRace {
    DsmemAccess earlier;        // the access it races with
    int64_t first_byte = 0;     // owner-CTA shared-memory bytes that race
    int64_t last_byte = 0;
};

// Bytes of a peer's generic writes read by the async proxy without a proxy fence that
// covers them on the causality path.
struct RemoteProxyViolation {
    int64_t first_byte = 0, last_byte = 0;
    std::vector<int> writers;   // agents, ascending
    std::vector<int> ops;       // ascending
};

// A generic access of bytes an async-proxy write (a TMA load, a multicast delivery) is issued
// into: unordered before the issue (a race), or ordered with no proxy fence on the path (B12).
struct AsyncOverwrite {
    DsmemAccess earlier;
    bool ordered = false;
    int64_t first_byte = 0, last_byte = 0;  // owner-CTA shared-memory bytes
};

class DsmemRaces {
public:
    static constexpr int64_t kGranule = 4;

    // The CTAs of `agents` with `smem_bytes` of shared memory each.
    DsmemRaces(const ClusterAgents& agents, int64_t smem_bytes);

    int rank_of(int agent) const { return agents_.rank_of(agent); }
    // `access` of bytes [offset, offset + bytes) of rank `owner`'s shared memory. Returns the
    // first race (with the lowest granule) and records the access either way.
    std::optional<DsmemRace> access(const ClusterClock& clock, int owner, const DsmemAccess& access,
                                    int64_t offset, int64_t bytes);
    // An async copy into rank `owner`'s bytes (`access.agent` a TMA or cp.async agent of the
    // owner), recorded unchecked at its issue and again as it lands: the bytes' last writer
    // from then on, so a peer's access races with it until the peer knows the agent's time.
    // It replaces any generic writer, so the proxy rule no longer asks for a fence.
    void async_write(int owner, const DsmemAccess& access, int64_t offset, int64_t bytes);

    // fence.proxy.async by `agent` at its clock `time`: `covers_peers` for .shared::cluster
    // and the unqualified form (bytes it wrote into other CTAs); `covers_own` for every form
    // but .global (its own CTA's bytes, and what it knows of peers' writes into them).
    void proxy_fence(const ClusterClock& clock, int agent, uint32_t time, bool covers_peers, bool covers_own);
    // An async-proxy read of rank `owner`'s bytes issued by `issuer` (an agent of `owner`):
    // each peer's generic write there needs (a) its writer's covering fence after it and a
    // sync edge from after that fence to the issuer, or (b) an issuer fence while it knew
    // the write.
    std::optional<RemoteProxyViolation> check_async_read(const ClusterClock& clock, int owner, int issuer,
                                                         int64_t offset, int64_t bytes) const;

    // An async-proxy write into rank `owner`'s bytes issued by `issuer` (an agent of rank
    // `issuer_rank`), before it is recorded: the first generic access there by a thread of
    // another CTA, or of the owner when the issuer is a peer (the owner's own accesses of its
    // own bytes before its own copy are the CTA's SharedAccessHistory's), that the issuer does
    // not know (a race) or knows with no covering fence.proxy.async on the path: (a) the
    // accessor's fence after the access (its own CTA's bytes: any form but .global; a peer's:
    // .shared::cluster or unqualified) that a sync edge brought to the issuer, or (b) an
    // issuer fence covering the owner's bytes while it knew the access.
    std::optional<AsyncOverwrite> check_async_write(const ClusterClock& clock, int owner, int issuer,
                                                    int64_t offset, int64_t bytes) const;

private:
    bool access_fenced(const ClusterClock& clock, int owner, int issuer, const DsmemAccess& a) const;
    struct Granule {
        DsmemAccess write;               // agent -1: none (or the async proxy's)
        std::vector<DsmemAccess> reads;  // since the write, one per agent (its latest)
    };
    std::optional<DsmemAccess> conflict(const ClusterClock& clock, const Granule& g, const DsmemAccess& a,
                                        int owner) const;
    bool fenced(const ClusterClock& clock, int issuer, const DsmemAccess& w) const;

    ClusterAgents agents_;
    int64_t granules_per_rank_;
    std::vector<Granule> granules_;                        // rank-major
    std::vector<std::vector<uint32_t>> peer_fences_;       // per agent, ascending times
    std::vector<std::vector<uint32_t>> own_fences_;        // per agent, ascending times (covers_own)
    std::vector<ClusterClock::SharedClock> known_at_peer_fence_;  // per agent, at its latest covers_peers fence
    std::vector<ClusterClock::SharedClock> known_at_fence_;  // per agent, at its latest own-covering fence
};

}  // namespace tmasim::model
