// ProxyTracker shares clock rows between threads (a sync gives all one row; threads that
// acquire one release from one row share the result). This holds it against the plain
// definition, one full vector clock per agent, over random syncs, releases and acquires.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "model/state/proxy_tracker.h"

using tmasim::model::ProxyTracker;
using tmasim::model::VectorClock;

namespace {

// The definition: row[a][b] is b's time that a has synchronised with, row[a][a] a's own.
struct PlainClocks {
    explicit PlainClocks(size_t agents) : clock(agents, 0), row(agents, VectorClock(agents, 0)) {}
    void tick(int a) { row[a][a] = ++clock[a]; }
    static void join(VectorClock& into, const VectorClock& from) {
        for (size_t i = 0; i < into.size(); ++i) into[i] = std::max(into[i], from[i]);
    }
    void sync(const std::vector<int>& threads) {
        VectorClock all(clock.size(), 0);
        for (int t : threads) tick(t);
        for (int t : threads) join(all, row[t]);
        for (int t : threads) row[t] = all;
    }
    void release_into(int a, VectorClock& accumulated) {
        tick(a);
        if (accumulated.size() != clock.size()) accumulated.assign(clock.size(), 0);
        join(accumulated, row[a]);
    }
    void acquire(int t, const VectorClock& released) {
        if (released.size() != clock.size()) return;
        join(row[t], released);
        row[t][t] = clock[t];
    }
    std::vector<uint32_t> clock;
    std::vector<VectorClock> row;
};

}  // namespace

TEST_CASE("proxy clocks: shared rows know what one vector clock per agent knows", "[model][proxy]") {
    const int threads = 12, barriers = 3;
    for (unsigned seed = 1; seed <= 20; ++seed) {
        std::mt19937 rng(seed);
        auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
        ProxyTracker tracker(threads, 64, barriers);
        const int agents = 2 * threads + barriers;
        PlainClocks plain(static_cast<size_t>(agents));
        std::vector<VectorClock> phases(3), plain_phases(3);  // released clocks, as barrier phases hold them
        for (int step = 0; step < 400; ++step) {
            const int what = pick(10);
            if (what < 2) {  // an agent's own event: a thread's write, a copy landing
                const int a = pick(3) == 0 ? tracker.tma_agent(pick(barriers)) : pick(4) == 0 ? tracker.cp_agent(pick(threads)) : pick(threads);
                tracker.advance(a);
                plain.tick(a);
            } else if (what < 4) {  // a sync of all threads, or of some
                std::vector<int> group;
                for (int t = 0; t < threads; ++t)
                    if (pick(3) || what == 2) group.push_back(t);
                tracker.cta_sync(group);
                plain.sync(group);
            } else if (what < 6) {  // a release into a phase, by a thread or a TMA agent
                const int p = pick(3);
                if (pick(6) == 0) {  // the phase completed: its clock starts again
                    phases[p].clear();
                    plain_phases[p].clear();
                }
                const int a = pick(2) ? pick(threads) : tracker.tma_agent(pick(barriers));
                // Several in a row, as a landing's chunks release (ProxyTracker's release memo).
                for (int again = 1 + pick(3); again > 0; --again) {
                    tracker.release_into(a, phases[p]);
                    plain.release_into(a, plain_phases[p]);
                    REQUIRE(phases[p] == plain_phases[p]);
                }
            } else {  // a warp's threads acquire one phase one after another
                const int p = pick(3), first = pick(threads), count = 1 + pick(threads);
                std::vector<int> group;
                for (int k = 0; k < count; ++k) group.push_back((first + k) % threads);
                if (pick(2)) {  // as a warp's wait does: all at once
                    tracker.acquire_each(group.data(), group.size(), phases[p]);
                } else {
                    for (int t : group) tracker.acquire(t, phases[p]);
                }
                for (int t : group) plain.acquire(t, plain_phases[p]);
            }
            for (int t = 0; t < threads; ++t) {
                INFO("seed " << seed << " step " << step << " thread " << t);
                REQUIRE(tracker.known_by({t}) == plain.row[t]);
            }
        }
        for (int a = 0; a < agents; ++a) {
            uint32_t least = UINT32_MAX;
            for (int t = 0; t < threads; ++t) least = std::min(least, plain.row[t][a]);
            CHECK(tracker.least_known(a) == least);
        }
    }
}
