#include "model/state/thread_groups.h"

#include <cstddef>
#include <stdexcept>
#include <string>

namespace tmasim::model {

void ThreadGroups::make() {
    if (!groups_.empty() || threads_ == 0) return;
    uncommitted_.resize(static_cast<size_t>(threads_));
    groups_.resize(static_cast<size_t>(threads_));
}

// libstdc++'s vector::at text, so a bad thread reads the same before and after the lists exist.
void ThreadGroups::check_thread(int thread) const {
    const auto n = static_cast<size_t>(thread);
    if (n >= static_cast<size_t>(threads_))
        throw std::out_of_range("vector::_M_range_check: __n (which is " + std::to_string(n) +
                                ") >= this->size() (which is " + std::to_string(threads_) + ")");
}

void ThreadGroups::add(int thread, int token) {
    make();
    uncommitted_.at(static_cast<size_t>(thread)).push_back(token);
}

void ThreadGroups::commit(int thread) {
    make();
    Group& open = uncommitted_.at(static_cast<size_t>(thread));
    groups_[static_cast<size_t>(thread)].push_back(std::move(open));
    open.clear();
}

const ThreadGroups::Group& ThreadGroups::uncommitted(int thread) const {
    static const Group none;
    check_thread(thread);
    return uncommitted_.empty() ? none : uncommitted_[static_cast<size_t>(thread)];
}

const std::vector<ThreadGroups::Group>& ThreadGroups::groups(int thread) const {
    static const std::vector<Group> none;
    check_thread(thread);
    return groups_.empty() ? none : groups_[static_cast<size_t>(thread)];
}

}  // namespace tmasim::model
