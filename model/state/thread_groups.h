#pragma once
// One CTA's per-thread async-group lists, shared by BulkGroups and CpAsyncGroups: each thread's
// uncommitted tokens and its committed groups (oldest first; only appended to). Made on the
// first add or commit: every CTA has this state, also where the program never uses the groups
// (a TMA load stream made 2 x 128 empty vectors per CTA, 6 KB of fresh memory each at 132
// CTAs). Until then every thread's lists read as empty; a thread outside the CTA throws the
// out_of_range the vectors' at() throws.
#include <vector>

namespace tmasim::model {

class ThreadGroups {
public:
    using Group = std::vector<int>;

    explicit ThreadGroups(int num_threads) : threads_(num_threads) {}

    void add(int thread, int token);  // to the thread's uncommitted tokens
    void commit(int thread);          // the uncommitted tokens become its newest group
    const Group& uncommitted(int thread) const;
    // Vectors, not deques: a deque allocates on construction (19 MB at 132 CTAs).
    const std::vector<Group>& groups(int thread) const;

private:
    void make();
    void check_thread(int thread) const;  // throws as at() would, for a thread outside the CTA

    int threads_ = 0;
    std::vector<Group> uncommitted_;
    std::vector<std::vector<Group>> groups_;
};

}  // namespace tmasim::model
