#pragma once
// Collects a run's trace events and diagnostics, and hands them back in the
// deterministic order traces/FORMAT.md fixes.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "scenarios/run_result.h"

namespace tmasim::model {

// Where an event happens: which op instance, on which thread.
struct EventSite {
    int op = -1;
    std::vector<int64_t> iters;
    int cta = 0;
    int warp = 0;
    int lane = 0;
};

class EventLog {
public:
    void add(const EventSite& site, EventKind kind, int64_t t,
             std::map<std::string, std::string> detail = {});
    // An event only the model sees (kind `state`, model_only, `what` says which).
    void add_model_only(const EventSite& site, const std::string& what, int64_t t,
                        std::map<std::string, std::string> detail = {});
    // A diagnostic, plus a `hazard` event at the site so it shows on the timeline.
    void report(Diagnostic d, const EventSite& site, int64_t t);
    // Diagnostics without a timeline position (hangs, found after the run).
    void report(Diagnostic d);

    // fault > hang > hazard > ok over all diagnostics.
    Outcome outcome() const;
    // Sorted by (cta, t, op, warp, lane, kind), then iters and `what` for full determinism.
    // Moves the events out (the log is empty after): a full-chip run logs a million.
    std::vector<TraceEvent> take_sorted_events();
    const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

private:
    std::vector<TraceEvent> events_;
    std::vector<Diagnostic> diagnostics_;
};

}  // namespace tmasim::model
