#include "model/state/bulk_groups.h"

namespace tmasim::model {

BulkGroups::BulkGroups(int num_threads) : lists_(num_threads) {}

int BulkGroups::add_op(int thread) {
    ops_.push_back({});
    const int token = static_cast<int>(ops_.size()) - 1;
    lists_.add(thread, token);
    return token;
}

void BulkGroups::commit(int thread) { lists_.commit(thread); }

void BulkGroups::mark_read(int token) { ops_.at(token).read = true; }

void BulkGroups::mark_written(int token) {
    ops_.at(token).read = true;
    ops_.at(token).written = true;
}

bool BulkGroups::group_done(const std::vector<int>& group, bool read_only) const {
    for (int token : group)
        if (!(read_only ? ops_[token].read : ops_[token].written)) return false;
    return true;
}

bool BulkGroups::wait_satisfied(int thread, int64_t n, bool read_only) const {
    const auto& gs = lists_.groups(thread);
    const int64_t older = static_cast<int64_t>(gs.size()) - n;
    for (int64_t i = 0; i < older; ++i)
        if (!group_done(gs[i], read_only)) return false;
    return true;
}

std::vector<int> BulkGroups::covered_tokens(int thread, int64_t n) const {
    const auto& gs = lists_.groups(thread);
    std::vector<int> out;
    const int64_t older = static_cast<int64_t>(gs.size()) - n;
    for (int64_t i = 0; i < older; ++i) out.insert(out.end(), gs[i].begin(), gs[i].end());
    return out;
}

int BulkGroups::pending_groups(int thread, bool read_only) const {
    int pending = 0;
    for (const auto& g : lists_.groups(thread))
        if (!group_done(g, read_only)) ++pending;
    return pending;
}

}  // namespace tmasim::model
