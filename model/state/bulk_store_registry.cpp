#include "model/state/bulk_store_registry.h"

#include <algorithm>

#include "model/state/cluster_clock.h"

namespace tmasim::model {

namespace {
constexpr int kGroupThreads = 128;  // a warpgroup: 4 warps

bool covered_for(int thread, const BulkStore& s, uint32_t tick, const ProxyTracker& t) {
    return tick != 0 && t.knows(thread, s.issuer, tick);
}
}  // namespace

void BulkStoreRegistry::add(const BulkStore& s) { stores_.push_back(s); }

void BulkStoreRegistry::covered(const std::vector<int>& tokens, bool read_only, uint32_t tick) {
    for (BulkStore& s : stores_) {
        if (s.reader != BulkStore::Reader::store) continue;
        if (std::find(tokens.begin(), tokens.end(), s.token) == tokens.end()) continue;
        if (s.read_covered == 0) s.read_covered = tick;
        if (!read_only && s.write_covered == 0) s.write_covered = tick;
    }
}

bool BulkStoreRegistry::source_covered(int thread, const BulkStore& s, const ProxyTracker& t) {
    // A wait without .read also covers the read: the store completed.
    if (covered_for(thread, s, s.read_covered, t)) return true;
    for (const auto& [u, tick] : s.waits)
        if (t.knows(thread, u, tick)) return true;
    return false;
}

PendingReadHit BulkStoreRegistry::hit(const BulkStore& s, int64_t first, int64_t last) {
    if (s.smem_last < first || s.smem_first > last) return {};
    if (s.smem_ranges.empty()) return {&s, std::max(first, s.smem_first), std::min(last, s.smem_last)};
    PendingReadHit h;
    for (const auto& [lo, hi] : s.smem_ranges) {
        if (hi < first || lo > last) continue;
        if (!h.read) h = {&s, std::max(first, lo), 0};
        h.last = std::min(last, hi);
    }
    return h;
}

const BulkStore* BulkStoreRegistry::source_race(int thread, int64_t first, int64_t last,
                                                const ProxyTracker& t) const {
    for (const BulkStore& s : stores_)
        if (s.reader == BulkStore::Reader::store && hit(s, first, last).read && !source_covered(thread, s, t))
            return &s;
    return nullptr;
}

PendingReadHit BulkStoreRegistry::write_race(int thread, int64_t first, int64_t last, const ProxyTracker& t) const {
    for (const BulkStore& s : stores_) {
        if (s.reader == BulkStore::Reader::wgmma && thread / kGroupThreads == s.group &&
            !(s.issued_warps & (1u << (thread / 32) % 4)))
            continue;
        const PendingReadHit h = hit(s, first, last);
        if (h.read && !source_covered(thread, s, t)) return h;
    }
    return {};
}

PendingReadHit BulkStoreRegistry::peer_write_race(int agent, int64_t first, int64_t last,
                                                  const ClusterClock& clock) const {
    for (const BulkStore& s : stores_) {
        if (s.reader != BulkStore::Reader::wgmma) continue;
        const PendingReadHit h = hit(s, first, last);
        if (!h.read) continue;
        const bool known = std::any_of(s.cluster_waits.begin(), s.cluster_waits.end(),
                                       [&](const auto& w) { return clock.knows(agent, w.first, w.second); });
        if (!known) return h;
    }
    return {};
}

const BulkStore* BulkStoreRegistry::global_race(int thread, const std::string& tensor, int64_t first,
                                                int64_t last, const ProxyTracker& t, std::string& rule) const {
    for (const BulkStore& s : stores_) {
        if (s.reader != BulkStore::Reader::store) continue;
        if (s.tensor != tensor || covered_for(thread, s, s.write_covered, t)) continue;
        for (const auto& [lo, hi] : s.global_bytes) {
            if (hi < first || lo > last) continue;
            rule = covered_for(thread, s, s.read_covered, t) ? "race.global_after_read_only"
                                                             : "race.global_before_complete";
            return &s;
        }
    }
    return nullptr;
}

void BulkStoreRegistry::wgmma_issue(int group, int64_t seq, int warp_in_group, int op, int issuer,
                                    const std::vector<std::pair<int64_t, int64_t>>& ranges) {
    for (BulkStore& s : stores_)
        if (s.reader == BulkStore::Reader::wgmma && s.group == group && s.seq == seq) {
            s.issued_warps |= 1u << warp_in_group;
            return;
        }
    BulkStore s;
    s.issued_warps = 1u << warp_in_group;
    s.reader = BulkStore::Reader::wgmma;
    s.group = group;
    s.seq = seq;
    s.op = op;
    s.issuer = issuer;
    s.smem_ranges = ranges;
    std::sort(s.smem_ranges.begin(), s.smem_ranges.end());
    s.smem_first = s.smem_ranges.empty() ? 0 : s.smem_ranges.front().first;
    s.smem_last = s.smem_first;
    for (const auto& r : s.smem_ranges) s.smem_last = std::max(s.smem_last, r.second);
    if (!s.smem_ranges.empty()) stores_.push_back(std::move(s));
}

void BulkStoreRegistry::wgmma_retired(int group, int64_t seq_end, int warp_in_group,
                                      const std::vector<std::pair<int, uint32_t>>& waits,
                                      const std::vector<std::pair<int, uint32_t>>& cluster_waits) {
    const unsigned bit = 1u << warp_in_group;
    for (BulkStore& s : stores_) {
        if (s.reader != BulkStore::Reader::wgmma || s.group != group || s.seq >= seq_end) continue;
        if (s.covered_warps & bit) continue;
        s.covered_warps |= bit;
        s.waits.insert(s.waits.end(), waits.begin(), waits.end());
        s.cluster_waits.insert(s.cluster_waits.end(), cluster_waits.begin(), cluster_waits.end());
    }
}

void BulkStoreRegistry::prune(const ProxyTracker& t) {
    if (stores_.size() < 64) return;
    stores_.erase(std::remove_if(stores_.begin(), stores_.end(),
                                 [&](const BulkStore& s) {
                                     // Kept until every warp of the group waited. A peer's write
                                     // after the prune goes unchecked: the CTA's threads know
                                     // the mma retired, its peers may not (a gap, accepted to
                                     // bound the list).
                                     if (s.reader != BulkStore::Reader::wgmma || s.covered_warps != 0xfu) return false;
                                     for (int th = 0; th < t.num_threads(); ++th)
                                         if (!source_covered(th, s, t)) return false;
                                     return true;
                                 }),
                  stores_.end());
}

}  // namespace tmasim::model
