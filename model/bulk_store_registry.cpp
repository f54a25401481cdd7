#include "model/bulk_store_registry.h"

#include <algorithm>

namespace tmasim::model {

namespace {
bool covered_for(int thread, const BulkStore& s, uint32_t tick, const ProxyTracker& t) {
    return tick != 0 && t.knows(thread, s.issuer, tick);
}
}  // namespace

void BulkStoreRegistry::add(const BulkStore& s) { stores_.push_back(s); }

void BulkStoreRegistry::covered(const std::vector<int>& tokens, bool read_only, uint32_t tick) {
    for (BulkStore& s : stores_) {
        if (std::find(tokens.begin(), tokens.end(), s.token) == tokens.end()) continue;
        if (s.read_covered == 0) s.read_covered = tick;
        if (!read_only && s.write_covered == 0) s.write_covered = tick;
    }
}

const BulkStore* BulkStoreRegistry::source_race(int thread, int64_t first, int64_t last,
                                                const ProxyTracker& t) const {
    for (const BulkStore& s : stores_) {
        if (s.smem_last < first || s.smem_first > last) continue;
        // A wait without .read also covers the read: the store completed.
        if (!covered_for(thread, s, s.read_covered, t)) return &s;
    }
    return nullptr;
}

const BulkStore* BulkStoreRegistry::global_race(int thread, const std::string& tensor, int64_t first,
                                                int64_t last, const ProxyTracker& t, std::string& rule) const {
    for (const BulkStore& s : stores_) {
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

}  // namespace tmasim::model
