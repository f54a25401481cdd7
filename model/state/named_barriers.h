#pragma once
// The CTA's named barriers 1..15 (barrier.sync / barrier.arrive id, count; PTX 9.7.13.1),
// counted in threads of whole warps: each arriving warp adds 32, whatever its active lanes.
// A barrier completes when its arrivals reach the count of the current phase, then starts
// over. Every arrival is a release of what the arriving threads know; the threads of a
// bar.sync acquire the join of all of them when the phase completes (bar.arrive does not
// wait, so it acquires nothing). The clocks are the proxy tracker's, so the race checks
// (B12, C22) see the ordering a named barrier gives.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/state/proxy_tracker.h"

namespace tmasim::model {

class NamedBarriers {
public:
    static constexpr int kCount = 16;

    struct Arrival {
        uint64_t generation = 0;  // the phase the warp arrived in; a bar.sync waits past it
        bool completed = false;
    };

    // Warp arrival of `threads` (its lanes in the CTA) on barrier `id` expecting `count`
    // threads. Returns nullopt with `mismatch` set when the phase already expects another count.
    std::optional<Arrival> arrive(ProxyTracker& clocks, int id, int64_t count, const std::vector<int>& threads,
                                  bool waits, int64_t& mismatch);
    bool passed(int id, uint64_t generation) const { return slots_.at(id).generation > generation; }
    int64_t arrived(int id) const { return slots_.at(id).arrived; }
    int64_t expected(int id) const { return slots_.at(id).expected; }

private:
    struct Slot {
        int64_t expected = 0;  // 0: no phase open
        int64_t arrived = 0;
        uint64_t generation = 0;
        VectorClock releasing;
        std::vector<int> waiting;  // threads of the bar.sync warps of this phase
    };
    std::array<Slot, kCount> slots_;
};

}  // namespace tmasim::model
