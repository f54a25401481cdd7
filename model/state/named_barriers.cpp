#include "model/state/named_barriers.h"

namespace tmasim::model {

std::optional<NamedBarriers::Arrival> NamedBarriers::arrive(ProxyTracker& clocks, int id, int64_t count,
                                                            const std::vector<int>& threads, bool waits,
                                                            int64_t& mismatch) {
    Slot& s = slots_.at(id);
    if (s.expected != 0 && s.expected != count) {
        mismatch = s.expected;
        return std::nullopt;
    }
    s.expected = count;
    s.arrived += 32;
    for (int t : threads) clocks.release_into(t, s.releasing);
    if (waits) s.waiting.insert(s.waiting.end(), threads.begin(), threads.end());
    Arrival a{s.generation, false};
    if (s.arrived < s.expected) return a;
    clocks.acquire_each(s.waiting.data(), s.waiting.size(), s.releasing);
    s.waiting.clear();
    s.releasing.clear();
    s.arrived = 0;
    s.expected = 0;
    ++s.generation;
    a.completed = true;
    return a;
}

}  // namespace tmasim::model
