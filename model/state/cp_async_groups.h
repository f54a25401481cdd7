#pragma once
// Per-thread cp.async (LDGSTS) groups (semantics.md C20, PTX 9.7.9.25.3), separate from
// the bulk groups: cp.async.commit_group closes the thread's uncommitted copies into a
// group; cp.async.wait_group N returns once all but the newest N groups have landed;
// cp.async.wait_all is commit_group + wait_group 0. A wait makes the covered copies
// visible to the waiting thread only, so it reports the latest landing time it covers.
#include <cstdint>
#include <vector>

#include "model/state/thread_groups.h"

namespace tmasim::model {

class CpAsyncGroups {
public:
    explicit CpAsyncGroups(int num_threads);

    int add_copy(int thread);                      // returns the copy's token
    void commit(int thread);                       // an empty group is fine
    void mark_landed(int token, uint32_t agent_time);
    bool wait_satisfied(int thread, int64_t n) const;
    // Latest agent time of the copies wait_group N covers (0: none landed).
    uint32_t covered_time(int thread, int64_t n) const;
    // Tokens of the copies wait_group N covers: every group but the newest N.
    std::vector<int> covered_tokens(int thread, int64_t n) const;
    // Tokens of the thread's copies, committed or not, that have not landed.
    std::vector<int> outstanding(int thread) const;
    int pending_groups(int thread) const;

private:
    struct Copy {
        int thread = 0;
        uint32_t landed = 0;  // 0 while in flight
    };
    bool group_landed(const std::vector<int>& g) const;
    std::vector<Copy> copies_;
    ThreadGroups lists_;
};

}  // namespace tmasim::model
