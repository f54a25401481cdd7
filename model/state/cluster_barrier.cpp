#include "model/state/cluster_barrier.h"

#include <cstddef>

namespace tmasim::model {

ClusterBarrier::ClusterBarrier(int agents)
    : arrived_(agents, false), exited_(agents, false), unwaited_(agents, -1) {}

ClusterBarrier::Arrival ClusterBarrier::arrive(int agent) {
    Arrival a;
    a.repeated = unwaited_.at(agent) >= 0;
    a.phase = completed_;
    // "Each thread must arrive at the barrier only once before the barrier completes": a
    // second arrival in the same phase cannot count twice. One after the phase completed
    // (the thread just did not wait for it) counts in the new phase.
    if (arrived_[agent]) return a;
    a.counted = true;
    arrived_[agent] = true;
    unwaited_[agent] = completed_;
    ++arrivals_;
    if (!exited_[agent]) ++done_;
    a.completed = complete_if_done();
    return a;
}

bool ClusterBarrier::exit(int agent) {
    if (exited_.at(agent)) return false;
    exited_[agent] = true;
    if (!arrived_[agent]) ++done_;
    return complete_if_done();
}

bool ClusterBarrier::complete_if_done() {
    // A phase nobody arrived in is not a phase: threads that all exited complete nothing.
    if (done_ < static_cast<int>(arrived_.size()) || arrivals_ == 0) return false;
    ++completed_;
    arrived_.assign(arrived_.size(), false);
    arrivals_ = 0;
    done_ = 0;
    for (bool e : exited_) done_ += e ? 1 : 0;
    return true;
}

int64_t ClusterBarrier::wait_target(int agent) const {
    return unwaited_.at(agent) >= 0 ? unwaited_[agent] : completed_;
}

void ClusterBarrier::waited(int agent) { unwaited_.at(agent) = -1; }

std::vector<int> ClusterBarrier::missing() const {
    std::vector<int> out;
    for (std::size_t a = 0; a < arrived_.size(); ++a)
        if (!arrived_[a] && !exited_[a]) out.push_back(static_cast<int>(a));
    return out;
}

}  // namespace tmasim::model
