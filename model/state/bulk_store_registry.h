#pragma once
// Async-proxy reads of shared memory still in flight, and the reuse rules they impose.
//
// Bulk and TMA stores (semantics.md C19):
//   * the shared-memory source may be written again only after the issuing thread's
//     bulk.wait_group(.read) covers the store (and, for other threads, a barrier after
//     that wait): race.store_source_overwrite;
//   * the global bytes it writes may be read only after a bulk.wait_group without
//     .read covers it: race.global_after_read_only when only .read covered it,
//     race.global_before_complete when nothing did.
// wgmma.mma_async operands (C17, PTX 9.7.15.7.3): the A/B bytes it reads through the
// async proxy may be changed (a generic store, or an async copy's write) only once a
// wgmma.wait_group of its warpgroup retired it: race.wgmma_operand_overwrite.
//
// Coverage is a tick of a waiting thread's clock at the wait; another thread is covered
// once it has synchronised with that thread after that tick (ProxyTracker). A wgmma is
// covered by any lane of any warp of its warpgroup whose wait retired it: wait_group is
// warpgroup-aligned, so one warp's wait observing the mma complete is the whole
// instruction's completion. Peers of a cluster learn coverage through the cluster's
// clock, so each covering wait also carries its ClusterClock tick.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/state/proxy_tracker.h"

namespace tmasim::model {

class ClusterClock;

struct BulkStore {
    enum class Reader { store, wgmma };
    Reader reader = Reader::store;
    int64_t smem_first = 0, smem_last = 0;                  // span of the bytes read
    // wgmma: the [first, last] ranges inside the span the operand slices occupy.
    std::vector<std::pair<int64_t, int64_t>> smem_ranges;
    std::string tensor;                                     // destination global tensor
    std::vector<std::pair<int64_t, int64_t>> global_bytes;  // [first, last] ranges it writes
    int issuer = 0;
    int token = -1;           // BulkGroups token
    int op = -1;
    uint32_t read_covered = 0;   // issuer's clock at the wait that covered the source read
    uint32_t write_covered = 0;  // issuer's clock at the wait that covered the global writes
    // wgmma: warpgroup, its instance (per-warp issue count) and the covering waits.
    int group = -1;
    int64_t seq = -1;
    unsigned issued_warps = 0;                              // bit w: warp w of the group issued it
    unsigned covered_warps = 0;                             // bit w: warp w of the group waited
    std::vector<std::pair<int, uint32_t>> waits;            // (thread, ProxyTracker tick)
    std::vector<std::pair<int, uint32_t>> cluster_waits;    // (ClusterClock agent, tick)
};

// The bytes of a pending read a write hits.
struct PendingReadHit {
    const BulkStore* read = nullptr;
    int64_t first = 0, last = 0;  // CTA shared-memory bytes, inside the write
};

class BulkStoreRegistry {
public:
    void add(const BulkStore& s);
    // The issuer's wait (at its clock `tick`) covered these tokens; `read_only` for .read.
    void covered(const std::vector<int>& tokens, bool read_only, uint32_t tick);
    // A store whose source [first, last] `thread` may not yet write, or nullptr.
    const BulkStore* source_race(int thread, int64_t first, int64_t last, const ProxyTracker& t) const;
    // A store whose global result `thread` may not yet read; `rule` says which rule.
    const BulkStore* global_race(int thread, const std::string& tensor, int64_t first, int64_t last,
                                 const ProxyTracker& t, std::string& rule) const;

    // Warp `warp_in_group` of warpgroup `group` issues its `seq`-th mma (op `op`), reading
    // `ranges`; the warps of the group share one entry per instance.
    void wgmma_issue(int group, int64_t seq, int warp_in_group, int op, int issuer,
                     const std::vector<std::pair<int64_t, int64_t>>& ranges);
    // That warp's wait retired its mmas before `seq_end`: lane waits (thread, tick) and their
    // cluster ticks (empty outside a cluster).
    void wgmma_retired(int group, int64_t seq_end, int warp_in_group,
                       const std::vector<std::pair<int, uint32_t>>& waits,
                       const std::vector<std::pair<int, uint32_t>>& cluster_waits);
    // Any pending read (store source or wgmma operand) that a write by `thread` of bytes
    // [first, last] breaks, with the bytes hit. A thread of the mma's own warpgroup whose
    // warp has not issued it yet writes before it in program order: the instruction starts
    // once every warp of the group issued it, so that write is no overwrite (only the
    // mma's read of it may race, with the C17 rule of its copy).
    PendingReadHit write_race(int thread, int64_t first, int64_t last, const ProxyTracker& t) const;
    // The same for a peer's write (cluster agent `agent`); only wgmma operands carry
    // cluster coverage, so only they are checked.
    PendingReadHit peer_write_race(int agent, int64_t first, int64_t last, const ClusterClock& clock) const;
    // Drops wgmma entries every thread knows covered once the list grows.
    void prune(const ProxyTracker& t);
    size_t size() const { return stores_.size(); }

private:
    static bool source_covered(int thread, const BulkStore& s, const ProxyTracker& t);
    static PendingReadHit hit(const BulkStore& s, int64_t first, int64_t last);

    std::vector<BulkStore> stores_;
};

}  // namespace tmasim::model
