#pragma once
// Bulk and TMA stores in flight, for the two reuse rules of semantics.md C19:
//   * the shared-memory source may be written again only after the issuing thread's
//     bulk.wait_group(.read) covers the store (and, for other threads, a barrier after
//     that wait): race.store_source_overwrite;
//   * the global bytes it writes may be read only after a bulk.wait_group without
//     .read covers it: race.global_after_read_only when only .read covered it,
//     race.global_before_complete when nothing did.
// Coverage is a tick of the issuing thread's clock at the wait; another thread is
// covered once it has synchronised with the issuer after that tick (ProxyTracker).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/proxy_tracker.h"

namespace tmasim::model {

struct BulkStore {
    int64_t smem_first = 0, smem_last = 0;                  // source bytes in shared memory
    std::string tensor;                                     // destination global tensor
    std::vector<std::pair<int64_t, int64_t>> global_bytes;  // [first, last] ranges it writes
    int issuer = 0;
    int token = -1;           // BulkGroups token
    int op = -1;
    uint32_t read_covered = 0;   // issuer's clock at the wait that covered the source read
    uint32_t write_covered = 0;  // issuer's clock at the wait that covered the global writes
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

private:
    std::vector<BulkStore> stores_;
};

}  // namespace tmasim::model
