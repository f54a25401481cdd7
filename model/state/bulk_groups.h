#pragma once
// Per-thread bulk async-groups (semantics.md C18-C19): a thread's bulk stores stay
// uncommitted until its commit_group; wait_group N returns once every group but the
// newest N has completed (wait_group_read: once their sources have been read).
#include <cstdint>
#include <vector>

#include "model/state/thread_groups.h"

namespace tmasim::model {

class BulkGroups {
public:
    explicit BulkGroups(int num_threads);

    int add_op(int thread);          // a new bulk op of `thread`; returns its token
    void commit(int thread);         // an empty group is fine
    void mark_read(int token);       // the source has been read
    void mark_written(int token);    // the destination writes are done
    bool wait_satisfied(int thread, int64_t n, bool read_only) const;
    // Tokens of the groups a satisfied wait_group N covers: all but the newest N.
    std::vector<int> covered_tokens(int thread, int64_t n) const;
    // Committed groups of `thread` that are not yet complete (for hang messages).
    int pending_groups(int thread, bool read_only) const;

private:
    struct OpState {
        bool read = false;
        bool written = false;
    };
    bool group_done(const std::vector<int>& group, bool read_only) const;

    std::vector<OpState> ops_;
    ThreadGroups lists_;
};

}  // namespace tmasim::model
