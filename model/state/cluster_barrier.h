#pragma once
// The cluster barrier of PTX 9.7.13.3 (barrier.cluster.arrive / .wait; semantics.md F33),
// without time: every non-exited thread of every CTA of the cluster arrives once per phase;
// when the last one arrives (or the last one still missing exits) the phase completes and
// the barrier reinitialises itself. A wait waits for the phase of the thread's own latest
// arrive; a thread that waits without having arrived waits for a phase that needs its own
// arrival, which nothing can complete. Agents are rank * block + tid, as in ClusterClock.
#include <cstdint>
#include <vector>

namespace tmasim::model {

class ClusterBarrier {
public:
    explicit ClusterBarrier(int agents);

    struct Arrival {
        int64_t phase = 0;       // the phase the arrival counts in
        bool repeated = false;   // the agent arrived before and has not waited since
        bool counted = false;    // false: it already arrived in this phase, so it is dropped
        bool completed = false;  // this arrival completed the phase
    };
    Arrival arrive(int agent);
    // The agent's thread exited: it is not waited for, in this phase or any later one.
    // Returns true when that completed the current phase.
    bool exit(int agent);
    // The phase a wait by `agent` waits for: that of its latest unwaited arrive, or the
    // current one when it has none (which then needs the agent's own arrival).
    int64_t wait_target(int agent) const;
    bool passed(int64_t phase) const { return completed_ > phase; }
    // The agent's wait returned: its next arrive starts a new arrive/wait pair.
    void waited(int agent);

    int64_t phase() const { return completed_; }  // phases completed so far
    bool arrived(int agent) const { return arrived_.at(agent); }
    bool exited(int agent) const { return exited_.at(agent); }
    // Agents the current phase still waits for: live and not arrived.
    std::vector<int> missing() const;

private:
    bool complete_if_done();

    std::vector<bool> arrived_;        // in the current phase
    std::vector<bool> exited_;
    std::vector<int64_t> unwaited_;    // phase of the agent's latest arrive not yet waited on, or -1
    int done_ = 0;                     // agents arrived in this phase or exited
    int arrivals_ = 0;                 // agents arrived in this phase
    int64_t completed_ = 0;
};

}  // namespace tmasim::model
