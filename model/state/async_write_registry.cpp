#include "model/state/async_write_registry.h"

#include <algorithm>
#include <utility>

namespace tmasim::model {

int AsyncWriteRegistry::add(const AsyncWrite& w) {
    writes_.emplace_back(next_id_, w);
    return next_id_++;
}

void AsyncWriteRegistry::landed(int id, uint32_t agent_time) {
    // Ids are unique and ascending in the list (issue order; pruning keeps the order).
    auto it = std::lower_bound(writes_.begin(), writes_.end(), id,
                               [](const std::pair<int, AsyncWrite>& e, int wanted) { return e.first < wanted; });
    if (it != writes_.end() && it->first == id) it->second.landed = agent_time;
}

void AsyncWriteRegistry::attach_barrier(int thread, int barrier) {
    for (auto& [i, w] : writes_)
        if (w.kind == AsyncWrite::Kind::cp_async && w.issuer == thread && w.barrier < 0) w.barrier = barrier;
}

uint32_t AsyncWriteRegistry::wait_covered(int thread, const std::vector<int>& tokens, uint32_t tick) {
    uint32_t latest = 0;
    for (auto& [i, w] : writes_)
        if (w.kind == AsyncWrite::Kind::cp_async && w.issuer == thread &&
            std::find(tokens.begin(), tokens.end(), w.token) != tokens.end()) {
            if (w.wait_covered == 0) w.wait_covered = tick;
            latest = std::max(latest, w.cluster_time);
        }
    return latest;
}

bool AsyncWriteRegistry::known(int thread, const AsyncWrite& w, const ProxyTracker& tracker) {
    // cp.async: the issuer's group wait, passed on by barriers (C20)...
    if (w.wait_covered != 0 && tracker.knows(thread, w.issuer, w.wait_covered)) return true;
    // ...or the landed bytes reached the thread through an mbarrier phase.
    return w.landed != 0 && tracker.knows(thread, w.agent, w.landed);
}

std::optional<AsyncRace> AsyncWriteRegistry::check(int thread, int64_t first, int64_t last,
                                                   const ProxyTracker& tracker,
                                                   const BarrierObservations& barriers) const {
    for (const auto& [id, w] : writes_) {
        if (w.last < first || w.first > last) continue;
        if (known(thread, w, tracker)) continue;
        return AsyncRace{classify(thread, w, barriers), w};
    }
    return std::nullopt;
}

std::string AsyncWriteRegistry::classify(int thread, const AsyncWrite& w,
                                         const BarrierObservations& barriers) const {
    const int64_t seen = w.barrier >= 0 ? barriers.observed(thread, w.barrier) : -1;
    if (w.kind == AsyncWrite::Kind::cp_async) {
        // The thread waited on the barrier its cp.async arrivals go to, and passed early.
        if (seen >= 0) return "race.early_pass";
        return thread == w.issuer ? "race.cp_async_pending" : "race.cp_async_unwaited";
    }
    // The phase just before the one the load was issued in (or a later one) passed, and
    // it completed without waiting for any bytes: the arrivals alone completed it (A4).
    if (seen >= 0 && seen >= w.issue_phase - 1 &&
        (seen >= w.issue_phase || barriers.phase_bytes(w.barrier, seen) == 0))
        return "race.early_pass";
    return "race.read_before_complete";
}

void AsyncWriteRegistry::prune(const ProxyTracker& tracker) {
    if (writes_.size() < 64) return;
    // A write no cp.async wait covered is known to every thread when the least any thread
    // knows of its agent reaches its landing: one pass over the threads per agent, not per
    // write (a TMA box lands in 64 chunk writes of one agent).
    // The few agents seen so far with their least known time; a landing's chunks come one
    // after another, so the last one looked up answers most writes.
    std::vector<std::pair<int, uint32_t>> least_known;
    size_t last = 0;
    auto least_of = [&](int agent) {
        if (last < least_known.size() && least_known[last].first == agent) return least_known[last].second;
        for (last = 0; last < least_known.size(); ++last)
            if (least_known[last].first == agent) return least_known[last].second;
        least_known.emplace_back(agent, tracker.least_known(agent));
        return least_known[last].second;
    };
    auto known_by_all = [&](const AsyncWrite& w) {
        if (tracker.num_threads() == 0) return true;
        if (w.wait_covered == 0) {
            if (w.landed == 0) return false;
            return least_of(w.agent) >= w.landed;
        }
        for (int t = 0; t < tracker.num_threads(); ++t)
            if (!known(t, w, tracker)) return false;
        return true;
    };
    writes_.erase(std::remove_if(writes_.begin(), writes_.end(),
                                 [&](const std::pair<int, AsyncWrite>& e) { return known_by_all(e.second); }),
                  writes_.end());
}

}  // namespace tmasim::model
