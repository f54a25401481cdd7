#include "model/state/async_write_registry.h"

#include <algorithm>
#include <utility>

namespace tmasim::model {

AsyncWrite AsyncWriteRegistry::Run::write(size_t i) const {
    AsyncWrite w = head;
    w.first = first_of(i);
    w.last = last_of(i);
    w.landed = chunks[i].landed;
    return w;
}

void AsyncWriteRegistry::Run::add_bounds_slow(int64_t first, int64_t last) {
    // Called before the chunk is appended: chunks.size() is the new chunk's index. A regular
    // run's continuation by a whole step after a whole step was taken by add_bounds.
    const size_t n = chunks.size();
    if (regular) {
        if (n == 0) {
            step_first = tail_first = first;
            step = last - first + 1;
            tail_last = last;
            if (step > 0) return;
        }
        // Not (or no longer) the regular pattern: every chunk's bounds from here on.
        bounds.reserve(n + 1);
        for (size_t i = 0; i < n; ++i) bounds.emplace_back(first_of(i), last_of(i));
        regular = false;
    }
    bounds.emplace_back(first, last);
}

bool AsyncWriteRegistry::continues(const Run& run, const AsyncWrite& w) {
    // Only a TMA write issued in flight joins a run (a cp.async is matched by its token and
    // its wait, one write each); every field but the bytes must be the run's.
    const AsyncWrite& h = run.head;
    return w.kind == AsyncWrite::Kind::tma && h.kind == AsyncWrite::Kind::tma && w.landed == 0 &&
           w.agent == h.agent && w.op == h.op && w.issuer == h.issuer && w.barrier == h.barrier &&
           w.issue_phase == h.issue_phase && w.token == h.token && w.wait_covered == h.wait_covered &&
           w.cluster_time == h.cluster_time;
}

int AsyncWriteRegistry::add(const AsyncWrite& w) {
    if (runs_.empty() || !continues(runs_.back(), w)) {
        Run run;
        run.head = w;
        run.first_id = next_id_;
        run.lowest = w.first;
        run.highest = w.last;
        // A tile's load registers 64 chunks: room for them at once, not seven regrowths.
        run.chunks.reserve(w.kind == AsyncWrite::Kind::tma ? 64 : 1);
        runs_.push_back(std::move(run));
    }
    Run& run = runs_.back();
    run.add_bounds(w.first, w.last);
    run.chunks.push_back(Chunk{w.landed, false});
    if (w.landed != 0) run.in_order = false;  // landed at registration: prune it chunk by chunk
    ++run.live;
    ++live_;
    run.lowest = std::min(run.lowest, w.first);
    run.highest = std::max(run.highest, w.last);
    return next_id_++;
}

void AsyncWriteRegistry::landed(int id, uint32_t agent_time) {
    // Runs hold ascending, disjoint id ranges in issue order (pruning keeps the order). A
    // landing's chunks come one after another: the run of the last one is tried first.
    auto holds = [id](const Run& r) {
        return id >= r.first_id && static_cast<size_t>(id - r.first_id) < r.chunks.size();
    };
    if (last_landed_ >= runs_.size() || !holds(runs_[last_landed_])) {
        auto it = std::upper_bound(runs_.begin(), runs_.end(), id,
                                   [](int wanted, const Run& r) { return wanted < r.first_id; });
        if (it == runs_.begin()) return;
        last_landed_ = static_cast<size_t>(std::prev(it) - runs_.begin());
    }
    Run& run = runs_[last_landed_];
    const size_t i = static_cast<size_t>(id - run.first_id);
    if (i >= run.chunks.size() || run.chunks[i].removed) return;
    const bool next_in_order = i == run.landed_in_order && run.chunks[i].landed == 0 && agent_time != 0 &&
                               (i == 0 || agent_time > run.chunks[i - 1].landed);
    if (next_in_order) ++run.landed_in_order;
    else run.in_order = false;
    run.chunks[i].landed = agent_time;
}

void AsyncWriteRegistry::attach_barrier(int thread, int barrier) {
    for (Run& run : runs_) {
        AsyncWrite& w = run.head;
        if (w.kind == AsyncWrite::Kind::cp_async && w.issuer == thread && w.barrier < 0) w.barrier = barrier;
    }
}

uint32_t AsyncWriteRegistry::wait_covered(int thread, const std::vector<int>& tokens, uint32_t tick) {
    uint32_t latest = 0;
    for (Run& run : runs_) {
        AsyncWrite& w = run.head;  // a cp.async run holds one write
        if (w.kind == AsyncWrite::Kind::cp_async && w.issuer == thread &&
            std::find(tokens.begin(), tokens.end(), w.token) != tokens.end()) {
            if (w.wait_covered == 0) w.wait_covered = tick;
            latest = std::max(latest, w.cluster_time);
        }
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
    for (const Run& run : runs_) {
        if (run.highest < first || run.lowest > last) continue;
        for (size_t i = run.live_from; i < run.chunks.size(); ++i) {
            if (run.chunks[i].removed || run.last_of(i) < first || run.first_of(i) > last) continue;
            const AsyncWrite w = run.write(i);
            if (known(thread, w, tracker)) continue;
            return AsyncRace{classify(thread, w, barriers), w};
        }
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
    if (live_ < 64) return;
    // A write no cp.async wait covered is known to every thread when the least any thread
    // knows of its agent reaches its landing: one pass over the threads per agent, not per
    // write. The few agents seen so far with that time; the last one looked up comes first.
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
    auto remove = [&](Run& run, Chunk& c) {
        c.removed = true;
        --run.live;
        --live_;
    };
    for (Run& run : runs_) {
        if (run.in_order && run.head.wait_covered == 0 && tracker.num_threads() > 0) {
            // Landed chunks [live_from, landed_in_order) have rising times and the rest none:
            // the ones every thread knows are a prefix of them.
            if (run.live_from >= run.landed_in_order) continue;
            const uint32_t least = least_of(run.head.agent);
            while (run.live_from < run.landed_in_order && run.chunks[run.live_from].landed <= least)
                remove(run, run.chunks[run.live_from++]);
            continue;
        }
        for (size_t i = run.live_from; i < run.chunks.size(); ++i) {
            Chunk& c = run.chunks[i];
            if (!c.removed && known_by_all(run.write(i))) remove(run, c);
        }
        while (run.live_from < run.chunks.size() && run.chunks[run.live_from].removed) ++run.live_from;
    }
    runs_.erase(std::remove_if(runs_.begin(), runs_.end(), [](const Run& r) { return r.live == 0; }), runs_.end());
}

}  // namespace tmasim::model
