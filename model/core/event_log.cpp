#include "model/core/event_log.h"

#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <tuple>
#include <utility>

namespace tmasim::model {

namespace {
// The site's fields into an event already in the log: built in place, not on the warp's
// coroutine stack and moved in (at 132 CTAs those 152 bytes of stack were cold lines).
void fill_event(TraceEvent& e, EventSite&& s, EventKind kind, int64_t t) {
    e.op = s.op;
    e.iters = std::move(s.iters);
    e.cta = s.cta;
    e.warp = s.warp;
    e.lane = s.lane;
    e.kind = kind;
    e.t = t;
}

void fill_event(TraceEvent& e, const EventSite& s, EventKind kind, int64_t t) { fill_event(e, EventSite(s), kind, t); }

// The trace order (traces/FORMAT.md): by (cta, t, op, warp, lane, kind), then iters and
// `what` for full determinism.
bool trace_less(const TraceEvent& a, const TraceEvent& b) {
    return std::tie(a.cta, a.t, a.op, a.warp, a.lane, a.kind, a.iters, a.what) <
           std::tie(b.cta, b.t, b.op, b.warp, b.lane, b.kind, b.iters, b.what);
}

int severity(Outcome o) {
    switch (o) {
        case Outcome::ok: return 0;
        case Outcome::hazard: return 1;
        case Outcome::hang: return 2;
        case Outcome::fault: return 3;
    }
    return 0;
}
}  // namespace

TraceEvent& EventLog::emplace() { return events_.emplace_back(); }

void EventLog::note_last() {
    const TraceEvent& e = events_.back();
    // What take_sorted_events needs, noted while the event is at hand: its CTA, and its place
    // in the trace order among the CTA's events of its time (the log follows the simulation
    // clock, so a CTA's times go back rarely if ever; warps woken together log in wake order).
    if (e.cta < 0 || e.cta > kMostCtaIds) {
        any_unusual_cta_ = true;  // not a CTA index: take_sorted_events sorts all events
    } else {
        const auto c = static_cast<size_t>(e.cta);
        if (c >= ctas_.size()) ctas_.resize(c + 1);
        CtaOrder& cta = ctas_[c];
        if (!cta.out_of_time_order) {
            if (cta.count > 0 && e.t < cta.run_t) {
                cta.out_of_time_order = true;  // sorted as a whole at the end
                cta.run = {};
            } else if (cta.count == 0 || e.t != cta.run_t) {
                cta.run_t = e.t;
                cta.run.clear();
                cta.run.push_back(events_.size() - 1);
                cta.last_op = e.op, cta.last_warp = e.warp, cta.last_lane = e.lane, cta.last_kind = e.kind;
            } else {
                place_in_run(cta);
            }
        }
        ++cta.count;
    }
    event_cta_.push_back(e.cta);
}

void EventLog::place_in_run(CtaOrder& cta) {
    const size_t newest = events_.size() - 1;
    const TraceEvent& e = events_[newest];
    const auto key = std::tie(e.op, e.warp, e.lane, e.kind);
    const auto last = std::tie(cta.last_op, cta.last_warp, cta.last_lane, cta.last_kind);
    cta.run.push_back(newest);
    if (last < key || (key == last && !trace_less(e, events_[cta.run[cta.run.size() - 2]]))) {
        cta.last_op = e.op, cta.last_warp = e.warp, cta.last_lane = e.lane, cta.last_kind = e.kind;
        return;  // after every event of its time, where it is
    }
    // Insertion: the new event's content moves back past those strictly after it (events equal
    // in every key keep the order they were logged in, as the stable sort keeps them). The
    // run's last position keeps the largest event, so its noted key stands.
    for (size_t j = cta.run.size() - 1; j > 0 && trace_less(events_[cta.run[j]], events_[cta.run[j - 1]]); --j) {
        std::swap(events_[cta.run[j - 1]], events_[cta.run[j]]);
        if (open_credit_ && open_credit_->event == cta.run[j - 1]) {
            open_credit_->event = cta.run[j];
        } else if (open_credit_ && open_credit_->event == cta.run[j]) {  // the new event is the credit
            open_credit_->event = cta.run[j - 1];
        }
    }
}

void EventLog::add(EventSite site, EventKind kind, int64_t t, std::map<std::string, std::string> detail) {
    TraceEvent& e = emplace();
    fill_event(e, std::move(site), kind, t);
    e.detail = std::move(detail);
    note_last();
}

void EventLog::add_model_only(EventSite site, const std::string& what, int64_t t,
                              std::map<std::string, std::string> detail) {
    TraceEvent& e = emplace();
    fill_event(e, std::move(site), EventKind::state, t);
    e.model_only = true;
    e.what = what;
    e.detail = std::move(detail);
    note_last();
}

void EventLog::add_complete_tx(const EventSite& site, int64_t t, const std::string& barrier, int64_t bytes,
                               int64_t tx_count, int64_t pending, int64_t chunks) {
    if (open_credit_) {
        OpenCredit& c = *open_credit_;
        const TraceEvent& e = events_[c.event];
        const bool same_landing = e.t == t && e.op == site.op && e.cta == site.cta && e.warp == site.warp &&
                                  e.lane == site.lane && e.iters == site.iters && c.barrier == barrier;
        if (same_landing) {
            c.bytes += bytes;
            c.chunks += chunks;
            c.tx_count = tx_count;
            c.pending = pending;
            return;
        }
        close_credit();
    }
    open_credit_ = OpenCredit{events_.size(), barrier, bytes, chunks, tx_count, pending};
    TraceEvent& e = emplace();
    fill_event(e, site, EventKind::state, t);
    e.model_only = true;
    e.what = "complete_tx";
    note_last();
}

void EventLog::close_credit() {
    if (!open_credit_) return;
    const OpenCredit& c = *open_credit_;
    TraceEvent& e = events_[c.event];
    // Emplaced at the end in key order (barrier < bytes < chunks < pending < tx_count): no
    // initializer list copied into the map, no search per key (one fold per TMA landing).
    auto& d = e.detail;
    d.clear();
    d.emplace_hint(d.end(), "barrier", c.barrier);
    d.emplace_hint(d.end(), "bytes", std::to_string(c.bytes));
    if (c.chunks > 1) d.emplace_hint(d.end(), "chunks", std::to_string(c.chunks));
    d.emplace_hint(d.end(), "pending", std::to_string(c.pending));
    d.emplace_hint(d.end(), "tx_count", std::to_string(c.tx_count));
    open_credit_.reset();
}

void EventLog::report(Diagnostic d, const EventSite& site, int64_t t) {
    TraceEvent& e = emplace();
    fill_event(e, site, EventKind::hazard, t);
    e.model_only = true;
    e.what = d.rule;
    e.detail = d.detail;
    e.detail["rule"] = d.rule;
    note_last();
    diagnostics_.push_back(std::move(d));
}

void EventLog::report(Diagnostic d) { diagnostics_.push_back(std::move(d)); }

Outcome EventLog::outcome() const {
    Outcome worst = Outcome::ok;
    for (const auto& d : diagnostics_)
        if (severity(d.outcome) > severity(worst)) worst = d.outcome;
    return worst;
}

std::vector<TraceEvent> EventLog::take_sorted_events() {
    close_credit();
    // A stable sort by (cta, t, op, warp, lane, kind, iters, what): events equal in every key
    // keep the (deterministic) order they happened in. A full-chip run logs 400k events of
    // 152 bytes, so the sort goes in cheaper steps with the same result: a stable counting
    // sort by CTA (from the CTA ids noted as they were logged, not a pass over the events),
    // whose events are in the trace order already where their times never went back (the
    // usual case: note_last placed each among those of its time), else sorted now; then the
    // events move into place.
    const size_t n = events_.size();
    if (n == 0) return {};
    auto less = [this](uint32_t x, uint32_t y) { return trace_less(events_[x], events_[y]); };
    std::vector<uint32_t> order(n);  // order[position] = the index of the event that goes there
    if (any_unusual_cta_) {
        for (uint32_t i = 0; i < n; ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), less);
    } else {
        std::vector<size_t> next(ctas_.size() + 1, 0);  // each CTA's first position, then its next
        for (size_t c = 0; c < ctas_.size(); ++c) next[c + 1] = next[c] + ctas_[c].count;
        for (uint32_t i = 0; i < n; ++i) order[next[static_cast<size_t>(event_cta_[i])]++] = i;
        size_t first = 0;  // of the CTA's events in `order`
        for (const CtaOrder& cta : ctas_) {
            const auto begin = order.begin() + static_cast<std::ptrdiff_t>(first);
            first += cta.count;
            if (cta.out_of_time_order) std::stable_sort(begin, begin + static_cast<std::ptrdiff_t>(cta.count), less);
        }
    }
    // Apply the permutation in place, one cycle at a time. Walking a cycle while moving was
    // a chain of cache misses at 132 CTAs (where the next event comes from is known only once
    // `order` there is read, and each event is 152 bytes of a 60 MB log): the cycles are
    // listed first, from `order` alone (a placed position is marked by order[p] == p), and
    // the moves follow the list with each source fetched a few moves ahead.
    std::vector<uint32_t> path;  // the cycles' positions, one after another
    std::vector<size_t> cycle_end;
    path.reserve(n);
    for (size_t start = 0; start < n; ++start) {
        if (order[start] == start) continue;
        size_t at = start;
        do {
            path.push_back(static_cast<uint32_t>(at));
            const size_t from = order[at];
            order[at] = static_cast<uint32_t>(at);
            at = from;
        } while (at != start);
        cycle_end.push_back(path.size());
    }
    constexpr size_t kAhead = 8;
    size_t first = 0;
    for (const size_t end : cycle_end) {
        // events_[path[k]] takes events_[path[k + 1]]; the last takes the first's.
        TraceEvent held = std::move(events_[path[first]]);
        for (size_t k = first; k + 1 < end; ++k) {
            if (k + kAhead < end) {
                const char* next = reinterpret_cast<const char*>(&events_[path[k + kAhead]]);
                for (size_t line = 0; line < sizeof(TraceEvent); line += 64) __builtin_prefetch(next + line);
            }
            events_[path[k]] = std::move(events_[path[k + 1]]);
        }
        events_[path[end - 1]] = std::move(held);
        first = end;
    }
    std::vector<TraceEvent> out = std::move(events_);
    events_ = {};
    event_cta_ = {};
    ctas_ = {};
    any_unusual_cta_ = false;
    return out;
}

}  // namespace tmasim::model
