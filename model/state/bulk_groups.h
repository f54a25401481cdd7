#pragma once
// Per-thread bulk async-groups (semantics.md C18-C19): a thread's bulk stores stay
// uncommitted until its commit_group; wait_group N returns once every group but the
// newest N has completed (wait_group_read: once their sources have been read).
#include <cstdint>
#include <vector>

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

    // The per-thread lists are made on the first bulk op or commit: a program without bulk
    // groups (a TMA load stream) made 2 x 128 empty vectors per CTA, 6 KB of fresh memory each
    // at 132 CTAs, zeroed, faulted in and freed for nothing. Until then every thread's lists
    // are empty; a thread outside the CTA throws what the vectors' at() threw.
    int threads_ = 0;
    bool made_ = false;
    void make();
    void check_thread(int thread) const;

    std::vector<OpState> ops_;
    std::vector<std::vector<int>> uncommitted_;
    // Oldest first; only appended to. Vectors, not deques: a deque allocates on construction,
    // and every CTA made one per thread for each of the two kinds (19 MB at 132 CTAs).
    std::vector<std::vector<std::vector<int>>> groups_;
};

}  // namespace tmasim::model
