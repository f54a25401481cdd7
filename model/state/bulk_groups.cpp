#include "model/state/bulk_groups.h"

namespace tmasim::model {

BulkGroups::BulkGroups(int num_threads) : threads_(num_threads) {}

void BulkGroups::make() {
    if (made_) return;
    uncommitted_.resize(static_cast<size_t>(threads_));
    groups_.resize(static_cast<size_t>(threads_));
    made_ = true;
}

void BulkGroups::check_thread(int thread) const {
    if (thread < 0 || thread >= threads_) std::vector<std::vector<int>>(static_cast<size_t>(threads_)).at(thread);
}

int BulkGroups::add_op(int thread) {
    make();
    ops_.push_back({});
    int token = static_cast<int>(ops_.size()) - 1;
    uncommitted_.at(thread).push_back(token);
    return token;
}

void BulkGroups::commit(int thread) {
    make();
    groups_.at(thread).push_back(std::move(uncommitted_.at(thread)));
    uncommitted_[thread].clear();
}

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
    if (!made_) {
        check_thread(thread);
        return true;  // no group: nothing to wait for
    }
    const auto& gs = groups_.at(thread);
    int64_t older = static_cast<int64_t>(gs.size()) - n;
    for (int64_t i = 0; i < older; ++i)
        if (!group_done(gs[i], read_only)) return false;
    return true;
}

std::vector<int> BulkGroups::covered_tokens(int thread, int64_t n) const {
    if (!made_) {
        check_thread(thread);
        return {};
    }
    const auto& gs = groups_.at(thread);
    std::vector<int> out;
    const int64_t older = static_cast<int64_t>(gs.size()) - n;
    for (int64_t i = 0; i < older; ++i) out.insert(out.end(), gs[i].begin(), gs[i].end());
    return out;
}

int BulkGroups::pending_groups(int thread, bool read_only) const {
    if (!made_) {
        check_thread(thread);
        return 0;
    }
    int pending = 0;
    for (const auto& g : groups_.at(thread))
        if (!group_done(g, read_only)) ++pending;
    return pending;
}

}  // namespace tmasim::model
