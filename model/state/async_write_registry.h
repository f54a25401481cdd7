#pragma once
// Asynchronous writes into one CTA's shared memory (TMA/bulk loads and cp.async) and
// the races of generic accesses with them (semantics.md C17, C20, A4).
//
// A write is registered when it is issued and signed with its agent's clock when its
// bytes land (ProxyTracker agents). A generic access by thread T to its bytes is safe
// only once T knows the agent at that time: through the mbarrier phase the TMA bytes
// completed in, or through T's own cp.async wait (then a barrier for other threads).
// Before that, the access races with the write, landed or not: which bytes T sees
// depends on timing the program does not control. The race is classified so the report
// says what went wrong:
//   race.early_pass          T passed a wait on the write's mbarrier, but the phase it
//                            observed completed without these bytes (arrivals alone, or
//                            cp.async arrivals landing in the next phase);
//   race.read_before_complete  T touched TMA bytes without observing their phase;
//   race.cp_async_pending    T's own cp.async, its group not covered by T's waits;
//   race.cp_async_unwaited   another thread's cp.async, no barrier after its wait.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/state/proxy_tracker.h"

namespace tmasim::model {

struct AsyncWrite {
    enum class Kind { tma, cp_async };
    Kind kind = Kind::tma;
    int64_t first = 0, last = 0;  // CTA shared-memory bytes
    int agent = -1;               // ProxyTracker agent that signs the landing
    uint32_t landed = 0;          // agent time of the landing; 0 while in flight
    int op = -1;
    int issuer = 0;               // thread that issued it
    int barrier = -1;             // TMA: the mbarrier it signals; cp.async: its thread's
                                  // cp.async.mbarrier.arrive target, once there is one
    int64_t issue_phase = 0;      // TMA: the barrier's current phase at issue
    int token = -1;               // cp.async: its CpAsyncGroups token
    uint32_t wait_covered = 0;    // cp.async: issuer's clock at the group wait covering it
    uint32_t cluster_time = 0;    // cp.async in a cluster: its agent's ClusterClock time at issue
};

// What the registry needs to know about mbarriers, without depending on SystemC.
struct BarrierObservations {
    // Latest phase of `barrier` that `thread` observed with a wait (-1: none).
    std::function<int64_t(int thread, int barrier)> observed;
    // Bytes (summed expect_tx) the completed `phase` of `barrier` waited for.
    std::function<int64_t(int barrier, int64_t phase)> phase_bytes;
};

struct AsyncRace {
    std::string rule;
    AsyncWrite write;
};

class AsyncWriteRegistry {
public:
    int add(const AsyncWrite& w);                 // returns the write's id
    void landed(int id, uint32_t agent_time);
    // The thread's cp.async copies with no barrier yet now signal `barrier` (C20).
    void attach_barrier(int thread, int barrier);
    // The issuer's cp.async wait (at its clock `tick`) covered these copies. Returns the
    // latest cluster_time among them (0: none), which the cluster's clock learns.
    uint32_t wait_covered(int thread, const std::vector<int>& tokens, uint32_t tick);
    // The race of a generic access by `thread` to bytes [first, last], if any.
    std::optional<AsyncRace> check(int thread, int64_t first, int64_t last, const ProxyTracker& tracker,
                                   const BarrierObservations& barriers) const;
    // Drops writes every thread knows (they can no longer race) once the list grows.
    void prune(const ProxyTracker& tracker);

    size_t size() const { return live_; }

private:
    static bool known(int thread, const AsyncWrite& w, const ProxyTracker& tracker);
    std::string classify(int thread, const AsyncWrite& w, const BarrierObservations& barriers) const;

    // The writes, in issue order, held as runs of consecutive ids that differ only in their
    // bytes and landing: a TMA load registers one write per 256-byte chunk (64 a tile), and
    // scanning, searching and moving them one by one at every issue was ~8% of a full-chip
    // stream. A run's chunks that landed in chunk order with rising agent times, and that
    // no cp.async wait covered, are known to every thread as a prefix: prune drops that
    // prefix without looking at the rest. Any other run is pruned chunk by chunk.
    // A chunk's landing; its bytes are the run's to say (Run::first_of, last_of).
    struct Chunk {
        uint32_t landed = 0;
        bool removed = false;
    };
    struct Run {
        AsyncWrite head;            // what the chunks share (first, last, landed unused)
        int first_id = 0;
        std::vector<Chunk> chunks;  // chunk i has id first_id + i
        // A load's chunks follow one another in equal steps, the last one ending where the
        // load does: then chunk i starts at step_first + i * step and only the last one's end
        // is kept, not 16 bytes of bounds per chunk (read again when the tile lands, cold at
        // 132 CTAs). Any other run keeps each chunk's bounds (`bounds`, `regular` false).
        bool regular = true;
        int64_t step_first = 0, step = 0, tail_first = 0, tail_last = 0;
        std::vector<std::pair<int64_t, int64_t>> bounds;
        int64_t first_of(size_t i) const {
            return regular ? step_first + static_cast<int64_t>(i) * step : bounds[i].first;
        }
        int64_t last_of(size_t i) const {
            return !regular ? bounds[i].second : i + 1 == chunks.size() ? tail_last : first_of(i) + step - 1;
        }
        // The bounds of the chunk about to be appended.
        void add_bounds(int64_t first, int64_t last) {
            // The usual case, a whole step after a whole step, inline (64 per tile).
            if (regular && !chunks.empty() && tail_last - tail_first + 1 == step && first == tail_last + 1 &&
                last >= first) {
                tail_first = first;
                tail_last = last;
                return;
            }
            add_bounds_slow(first, last);
        }
        void add_bounds_slow(int64_t first, int64_t last);
        size_t live_from = 0;       // chunks before it are all removed
        size_t live = 0;            // chunks not removed
        size_t landed_in_order = 0; // chunks [0, this) landed in order, times rising; none after
        bool in_order = true;       // every landing so far came in that order
        int64_t lowest = 0, highest = 0;  // bytes any chunk ever covered
        AsyncWrite write(size_t i) const;  // chunk i as a write
    };
    static bool continues(const Run& run, const AsyncWrite& w);
    std::vector<Run> runs_;
    size_t live_ = 0;  // chunks not removed, over all runs
    size_t last_landed_ = 0;  // index in runs_ of the last landed() (a hint, checked before use)
    int next_id_ = 0;
};

}  // namespace tmasim::model
