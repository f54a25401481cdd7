#pragma once
// Items that fall due at a cycle, taken by one SystemC thread in (due cycle, insertion)
// order, so items due at the same cycle keep the order they were pushed in. The TMA
// engine's and the cp.async unit's landings and the cluster fabric's deliveries use it.
#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include <systemc>

#include "model/core/asan_stacks.h"
#include "model/core/sim_time.h"

namespace tmasim::model {

template <typename T>
class TimedQueue {
public:
    void push(int64_t due, T item) {
        items_.emplace(std::make_tuple(due, sequence_++), std::move(item));
        changed_.notify(sc_core::SC_ZERO_TIME);
    }

    // Wakes the taking thread so that it looks at its stop condition again.
    void wake() { changed_.notify(sc_core::SC_ZERO_TIME); }

    // For the taking thread: waits until the earliest item is due and returns it; nullopt
    // once `stop()` holds (asked at every wake-up).
    template <typename Stop>
    std::optional<T> next_due(const Stop& stop) {
        for (;;) {
            if (stop()) return std::nullopt;
            if (items_.empty()) {
                thread_wait(changed_);
                continue;
            }
            auto it = items_.begin();
            const int64_t due = std::get<0>(it->first);
            if (now_cycles() < due) {
                thread_wait(cycles(due - now_cycles()), changed_);
                continue;
            }
            T item = std::move(it->second);
            items_.erase(it);
            return item;
        }
    }

private:
    std::map<std::tuple<int64_t, uint64_t>, T> items_;
    uint64_t sequence_ = 0;
    sc_core::sc_event changed_;
};

}  // namespace tmasim::model
