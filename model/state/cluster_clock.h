#pragma once
// Happens-before among the threads of one cluster (semantics.md A10, F31, F33), for the
// rules that cross CTAs: DSMEM races, remote-barrier init publication, a CTA exiting while
// a peer still uses its shared memory. Each thread ("agent": rank * block + tid) has a
// logical clock, ticked at every event the cluster rules look at, and a vector of what it
// has synchronised with: CTA syncs, mbarrier release-arrive -> acquire-wait (local or
// remote), st.async completion, the cluster barrier.
//
// The CTA's own ProxyTracker keeps its vector clocks per CTA; these span the cluster. After
// a barrier every participant knows the same, so the vectors are shared between threads
// and copied only when one thread learns something the others do not: a cluster of 8 CTAs
// of 1024 threads stays small in the common, barrier-heavy programs.
#include <cstdint>
#include <memory>
#include <vector>

namespace tmasim::model {

// The agents of one cluster's clocks: each CTA's threads, then the writers of a CTA's
// shared memory that are not threads (like ProxyTracker's slots): the TMA completions of
// each of its mbarriers (TMA/bulk loads and multicast landing there) and each thread's
// cp.async unit. Their writes reach a peer the way they reach the owner's threads (a
// waited mbarrier phase, the issuer's cp.async wait) and then on through the cluster's
// synchronisation.
struct ClusterAgents {
    int ranks = 0, block = 0, barriers = 0;  // barriers per CTA

    enum class Kind { thread, tma, cp_async };
    int total() const { return ranks * (2 * block + barriers); }
    int thread(int rank, int tid) const { return rank * block + tid; }
    int tma(int rank, int barrier) const { return ranks * block + rank * barriers + barrier; }
    int cp_async(int rank, int tid) const { return ranks * (block + barriers) + rank * block + tid; }
    Kind kind(int agent) const {
        return agent < ranks * block ? Kind::thread : agent < ranks * (block + barriers) ? Kind::tma : Kind::cp_async;
    }
    int rank_of(int agent) const {
        switch (kind(agent)) {
            case Kind::thread: return agent / block;
            case Kind::tma: return (agent - ranks * block) / barriers;
            default: return (agent - ranks * (block + barriers)) / block;
        }
    }
    // The thread (tid in its CTA) an agent is or belongs to; the barrier for a TMA agent.
    int index_of(int agent) const {
        switch (kind(agent)) {
            case Kind::thread: return agent % block;
            case Kind::tma: return (agent - ranks * block) % barriers;
            default: return (agent - ranks * (block + barriers)) % block;
        }
    }
};

class ClusterClock {
public:
    using Clock = std::vector<uint32_t>;
    using SharedClock = std::shared_ptr<const Clock>;

    explicit ClusterClock(int agents);

    int agents() const { return agents_; }
    // A new event of `agent`; returns its time (> every earlier event of the agent).
    uint32_t tick(int agent);
    uint32_t now(int agent) const {
        make();
        return own_.at(agent);
    }
    // Whether `agent` has synchronised with `other`'s event at `time` (or a later one).
    bool knows(int agent, int other, uint32_t time) const;
    // What a release by `agent` publishes: everything it knows, its own clock included.
    SharedClock snapshot(int agent) const;
    // The same, joined into `accumulated` (sized agents()) without a copy.
    void release_into(int agent, Clock& accumulated) const;
    // An acquire that observed `released` (a completed phase, a cluster barrier).
    void acquire(int agent, const SharedClock& released);
    // A barrier among `agents` (bar.sync of one CTA): each learns what all of them know.
    void sync(const std::vector<int>& agents);

    static void join(Clock& into, const Clock& from);

private:
    // The vectors are made on first use: every cluster has a clock, and a cluster of one CTA,
    // which tracks nothing (Cluster::tracking), never uses it; made up front, a full-chip
    // stream's 132 of them were 4 KB of fresh memory each, faulted in and freed for nothing.
    int agents_ = 0;
    mutable bool made_ = false;
    void make() const;
    mutable std::vector<uint32_t> own_;
    mutable std::vector<SharedClock> known_;  // known_[a][b]: b's time a has synchronised with (b != a)
    // The last acquire: threads that knew the same and acquire the same release share the
    // result. Held as owners, so a freed vector's address can never alias a cached one.
    SharedClock cache_known_, cache_released_, cache_result_;
};

}  // namespace tmasim::model
