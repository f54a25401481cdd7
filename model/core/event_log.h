#pragma once
// Collects a run's trace events and diagnostics, and hands them back in the
// deterministic order traces/FORMAT.md fixes.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
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
    // The site by value: a temporary one's loop indices move into the event (a full-chip
    // run logs 400k events).
    void add(EventSite site, EventKind kind, int64_t t, std::map<std::string, std::string> detail = {});
    // An event only the model sees (kind `state`, model_only, `what` says which).
    void add_model_only(EventSite site, const std::string& what, int64_t t,
                        std::map<std::string, std::string> detail = {});
    // A complete_tx credit of `bytes` on `barrier` (model_only, kind `state`), with the
    // barrier's tx_count and pending after it. A TMA landing credits its barrier chunk by
    // chunk (64 credits for a 16 KB tile); credits logged one after another at the same site,
    // time and barrier fold into one event: `bytes` summed, `chunks` counted (from 2 on), the
    // tx_count and pending of the last (traces/FORMAT.md, version 3).
    // `chunks` credits logged at once (CtaModule::complete_tx_run) count as that many.
    void add_complete_tx(const EventSite& site, int64_t t, const std::string& barrier, int64_t bytes,
                         int64_t tx_count, int64_t pending, int64_t chunks = 1);
    // A diagnostic, plus a `hazard` event at the site so it shows on the timeline.
    void report(Diagnostic d, const EventSite& site, int64_t t);
    // Diagnostics without a timeline position (hangs, found after the run).
    void report(Diagnostic d);

    // Room for `events` events: a log that grows by doubling touches about twice its final
    // memory (60 MB of events at 132 CTAs: 17k page faults and a move of every event).
    void reserve(size_t events) {
        events_.reserve(events);
        event_cta_.reserve(events);
    }

    // fault > hang > hazard > ok over all diagnostics.
    Outcome outcome() const;
    // Sorted by (cta, t, op, warp, lane, kind), then iters and `what` for full determinism.
    // Moves the events out (the log is empty after): a full-chip run logs a million.
    std::vector<TraceEvent> take_sorted_events();
    const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
    // Events logged so far (RunBudget's progress and its bound on memory).
    size_t size() const { return events_.size(); }

private:
    std::vector<TraceEvent> events_;
    // A new event at the end of the log, filled by the caller, then noted (note_last).
    TraceEvent& emplace();
    void note_last();
    // For take_sorted_events, noted by note_last: each event's CTA (4 bytes an event, where
    // reading it from the events was a pass over 60 MB at 132 CTAs), and per CTA id its
    // event count and its latest time's events.
    std::vector<int> event_cta_;
    struct CtaOrder {
        size_t count = 0;
        bool out_of_time_order = false;  // an event earlier than its predecessor
        // Where the CTA's events of its latest time are in events_, in the trace order: an
        // event that sorts before the latest ones takes its place among them as it comes
        // (place_in_run), so the log holds each CTA's events in the trace order unless its
        // times went back, and take_sorted_events sorts nothing. Placed as they come, a
        // one-CTA stream's events are still in cache (Cachegrind, 2 MB last level: 4.72M ->
        // 3.30M misses for 1 CTA x 16896 tiles); at 132 CTAs they are as cold then as at the
        // end (14.42M -> 14.51M).
        int64_t run_t = 0;
        std::vector<size_t> run;
        // The leading key of the run's last event (its largest), which no later change of
        // that event touches: only a tie on all of it reads the event itself, whose line is
        // long out of cache at 132 CTAs.
        int last_op = 0, last_warp = 0, last_lane = 0;
        EventKind last_kind = EventKind::issue;
    };
    // Moves the newest event (at the end of the log) back among its CTA's run, past the
    // events that sort after it.
    void place_in_run(CtaOrder& cta);
    std::vector<CtaOrder> ctas_;
    // A CTA id that is no index (negative or absurd): then every event is sorted, as a
    // whole. Never in a model run; kept so the log stays correct for any id.
    static constexpr int kMostCtaIds = 1 << 20;
    bool any_unusual_cta_ = false;
    // The last complete_tx logged, which the next credit of the same landing folds into.
    // Its numbers are kept here and spelt into its detail when the fold ends: a 132-CTA
    // stream logs a million credits.
    struct OpenCredit {
        size_t event = 0;
        std::string barrier;
        int64_t bytes = 0, chunks = 0, tx_count = 0, pending = 0;
    };
    std::optional<OpenCredit> open_credit_;
    void close_credit();
    std::vector<Diagnostic> diagnostics_;
};

}  // namespace tmasim::model
