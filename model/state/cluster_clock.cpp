#include "model/state/cluster_clock.h"

#include <algorithm>

namespace tmasim::model {

ClusterClock::ClusterClock(int agents) : agents_(agents) {}

void ClusterClock::make() const {
    if (made_) return;
    own_.assign(static_cast<size_t>(agents_), 0);
    known_.assign(static_cast<size_t>(agents_), std::make_shared<const Clock>(agents_, 0));
    made_ = true;
}

uint32_t ClusterClock::tick(int agent) {
    make();
    return ++own_.at(agent);
}

bool ClusterClock::knows(int agent, int other, uint32_t time) const {
    make();
    if (agent == other) return own_.at(agent) >= time;
    return (*known_.at(agent))[other] >= time;
}

void ClusterClock::join(Clock& into, const Clock& from) {
    for (size_t i = 0; i < into.size(); ++i) into[i] = std::max(into[i], from[i]);
}

ClusterClock::SharedClock ClusterClock::snapshot(int agent) const {
    make();
    const SharedClock& k = known_.at(agent);
    if ((*k)[agent] == own_[agent]) return k;
    auto s = std::make_shared<Clock>(*k);
    (*s)[agent] = own_[agent];
    return s;
}

void ClusterClock::release_into(int agent, Clock& accumulated) const {
    make();
    join(accumulated, *known_.at(agent));
    accumulated[agent] = std::max(accumulated[agent], own_[agent]);
}

void ClusterClock::acquire(int agent, const SharedClock& released) {
    if (!released) return;
    make();
    const Clock& k = *known_.at(agent);
    bool news = false;
    for (size_t i = 0; i < k.size() && !news; ++i) news = static_cast<int>(i) != agent && (*released)[i] > k[i];
    if (!news) return;
    if (cache_known_ != known_[agent] || cache_released_ != released) {
        auto joined = std::make_shared<Clock>(k);
        join(*joined, *released);
        cache_known_ = known_[agent];
        cache_released_ = released;
        cache_result_ = joined;
    }
    known_[agent] = cache_result_;
}

void ClusterClock::sync(const std::vector<int>& agents) {
    if (agents.empty()) return;
    make();
    // Join each distinct vector once: after earlier barriers most threads share one.
    auto all = std::make_shared<Clock>(own_.size(), 0);
    const Clock* last = nullptr;
    for (int a : agents) {
        if (known_.at(a).get() != last) join(*all, *known_[a]);
        last = known_[a].get();
    }
    for (int a : agents) (*all)[a] = std::max((*all)[a], own_[a]);
    SharedClock shared = all;
    for (int a : agents) known_[a] = shared;
}

}  // namespace tmasim::model
