#pragma once
// The mbarriers of one CTA, each with the event its waiters block on and the vector
// clocks its phases release (release-arrive -> acquire-wait edges for ProxyTracker).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "model/state/mbarrier.h"
#include "model/state/proxy_tracker.h"
#include "scenarios/ir.h"
#include "scenarios/layout.h"

namespace tmasim::model {

// Completed phase -> its expect_tx sum, for every phase since the barrier's init. Phases
// complete in increasing order and are appended to a sorted vector: a std::map kept them
// too, and at 132 CTAs its insert walked and rebalanced nodes long out of cache. Any other
// order still gives a map's answers.
class PhaseBytes {
public:
    void set(int64_t phase, int64_t bytes);
    int64_t get(int64_t phase) const;  // 0 for a phase never set
    void clear() { entries_.clear(); }
    size_t size() const { return entries_.size(); }

private:
    std::vector<std::pair<int64_t, int64_t>> entries_;  // ascending phases
};

// Per thread, the latest phase of one barrier its waits observed (-1: none), for A8 and A9.
// A wait of a whole warp raises all its threads alike, so such a warp is kept as one value
// until a wait of only some of its lanes spells it out: a full-chip stream's warps wrote 32
// entries (256 bytes) at every wait and read them back at the next, cold lines at 132 CTAs.
class ObservedPhases {
public:
    void reset(int threads);  // `threads` threads, none observed anything
    void reset() { reset(static_cast<int>(per_thread_.size())); }
    // Throws what std::vector::at throws for a thread outside.
    int64_t at(int thread) const;
    // Each of `threads` (in order) observed at least `phase`.
    void raise(const int* threads, size_t count, int64_t phase);

private:
    bool whole_warp(const int* threads, size_t count) const;
    void spell_out(size_t warp);
    std::vector<int64_t> per_thread_;  // threads of a uniform warp: stale
    std::vector<int64_t> warp_value_;  // per warp, its threads' value while uniform
    std::vector<uint8_t> uniform_;     // per warp
};

struct BarrierSlot {
    std::string name;       // "bar" or "full[1]"
    std::string decl;       // the declared name: "full"
    int64_t smem_offset = 0;
    Mbarrier state;
    VectorClock releasing;                      // joined by this phase's arrivals so far
    std::map<int64_t, VectorClock> released;    // completed phase -> what it publishes
    sc_core::sc_event changed;                  // any arrive / tx / flip
    // Which phases waits have observed (A8, A9): per thread the latest, and over all.
    ObservedPhases observed_by;
    int64_t observed_through = -1;
    int64_t unobserved_reported = -1;           // phase already reported (A9), once each
    PhaseBytes phase_bytes;
    void reset_observations();

    // The phase a wait on `parity` observes once it returns true: the latest completed
    // phase with that parity (A8), or -1 when none has completed.
    int64_t observed_phase(int64_t parity) const;
};

class BarrierSet {
public:
    BarrierSet(const Scenario& s, const SharedLayout& layout);

    // Index of name[index] (index ignored for a plain barrier); throws std::out_of_range.
    int index_of(const std::string& name, int64_t index, bool indexed) const;
    // A kernel's barriers are 8-byte words of shared memory, found by their offset: slot
    // `index` (the run gives every offset one index, the same in every CTA, so a peer's
    // barrier at an offset is the slot of that index there) is made on first use, named `name`.
    // The slots below it that no barrier took yet are made too, unused.
    BarrierSlot& kernel_slot(int index, int64_t offset, const std::string& name, int threads);
    BarrierSlot& at(int i) { return *slots_.at(i); }
    const BarrierSlot& at(int i) const { return *slots_.at(i); }
    int size() const { return static_cast<int>(slots_.size()); }
    void notify_all();
    // Storage lifetime (semantics.md A11): barrier `i` became live (init) or ended (inval),
    // and the live barrier whose 8 bytes overlap CTA bytes [first, last], if any: -1 when none.
    void set_live(int i, bool live);
    int live_in(int64_t first, int64_t last) const {
        // Most accesses miss every barrier: a program's own barrier slots follow its buffers.
        if (live_.empty() || last < live_.front().first || first > live_.back().first + 7) return -1;
        return live_in_slow(first, last);
    }

private:
    struct Decl {
        int first = 0;
        int64_t count = 1;
        bool array = false;
    };
    std::map<std::string, Decl> decls_;
    std::vector<std::unique_ptr<BarrierSlot>> slots_;  // sc_event cannot move
    int live_in_slow(int64_t first, int64_t last) const;
    std::vector<std::pair<int64_t, int>> live_;  // (offset, slot) of the live barriers, ascending offsets
};

}  // namespace tmasim::model
