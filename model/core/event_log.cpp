#include "model/core/event_log.h"

#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <tuple>
#include <utility>

namespace tmasim::model {

namespace {
TraceEvent make_event(EventSite&& s, EventKind kind, int64_t t) {
    TraceEvent e;
    e.op = s.op;
    e.iters = std::move(s.iters);
    e.cta = s.cta;
    e.warp = s.warp;
    e.lane = s.lane;
    e.kind = kind;
    e.t = t;
    return e;
}

TraceEvent make_event(const EventSite& s, EventKind kind, int64_t t) { return make_event(EventSite(s), kind, t); }

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

void EventLog::add(EventSite site, EventKind kind, int64_t t, std::map<std::string, std::string> detail) {
    TraceEvent e = make_event(std::move(site), kind, t);
    e.detail = std::move(detail);
    events_.push_back(std::move(e));
}

void EventLog::add_model_only(EventSite site, const std::string& what, int64_t t,
                              std::map<std::string, std::string> detail) {
    TraceEvent e = make_event(std::move(site), EventKind::state, t);
    e.model_only = true;
    e.what = what;
    e.detail = std::move(detail);
    events_.push_back(std::move(e));
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
    TraceEvent e = make_event(site, EventKind::state, t);
    e.model_only = true;
    e.what = "complete_tx";
    open_credit_ = OpenCredit{events_.size(), barrier, bytes, chunks, tx_count, pending};
    events_.push_back(std::move(e));
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
    TraceEvent e = make_event(site, EventKind::hazard, t);
    e.model_only = true;
    e.what = d.rule;
    e.detail = d.detail;
    e.detail["rule"] = d.rule;
    events_.push_back(std::move(e));
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
    // keep the (deterministic) order they happened in. A full-chip run logs a million events,
    // so the sort goes in three cheaper steps with the same result: a stable counting sort by
    // CTA; in a CTA whose events were logged in time order (the usual case: the log follows
    // the simulation clock), a stable sort of each run of equal times only; then the events
    // move into place along the permutation's cycles, without a second array of them.
    const size_t n = events_.size();
    if (n == 0) return {};
    auto less = [this](uint32_t x, uint32_t y) {
        const TraceEvent& a = events_[x];
        const TraceEvent& b = events_[y];
        return std::tie(a.cta, a.t, a.op, a.warp, a.lane, a.kind, a.iters, a.what) <
               std::tie(b.cta, b.t, b.op, b.warp, b.lane, b.kind, b.iters, b.what);
    };
    int lowest = events_.front().cta, highest = lowest;
    for (const TraceEvent& e : events_) {
        lowest = std::min(lowest, e.cta);
        highest = std::max(highest, e.cta);
    }
    std::vector<size_t> bucket_start(static_cast<size_t>(highest - lowest) + 2, 0);
    for (const TraceEvent& e : events_) ++bucket_start[static_cast<size_t>(e.cta - lowest) + 1];
    for (size_t b = 1; b < bucket_start.size(); ++b) bucket_start[b] += bucket_start[b - 1];
    std::vector<uint32_t> order(n);  // order[position] = the index of the event that goes there
    {
        std::vector<size_t> next = bucket_start;
        for (uint32_t i = 0; i < n; ++i) order[next[static_cast<size_t>(events_[i].cta - lowest)]++] = i;
    }
    for (size_t b = 0; b + 1 < bucket_start.size(); ++b) {
        const auto first = order.begin() + static_cast<std::ptrdiff_t>(bucket_start[b]);
        const auto last = order.begin() + static_cast<std::ptrdiff_t>(bucket_start[b + 1]);
        const bool in_time_order = std::is_sorted(first, last, [this](uint32_t x, uint32_t y) {
            return events_[x].t < events_[y].t;
        });
        if (!in_time_order) {
            std::stable_sort(first, last, less);
            continue;
        }
        for (auto run = first; run != last;) {
            auto end = run + 1;
            while (end != last && events_[*end].t == events_[*run].t) ++end;
            // Most runs are in order already; stable_sort would allocate a buffer for each.
            if (end - run > 1 && !std::is_sorted(run, end, less)) std::stable_sort(run, end, less);
            run = end;
        }
    }
    // Apply the permutation in place, one cycle at a time (a placed position is marked by
    // order[position] == position).
    for (size_t start = 0; start < n; ++start) {
        if (order[start] == start) continue;
        TraceEvent held = std::move(events_[start]);
        size_t at = start;
        while (order[at] != start) {
            const size_t from = order[at];
            events_[at] = std::move(events_[from]);
            order[at] = static_cast<uint32_t>(at);
            at = from;
        }
        events_[at] = std::move(held);
        order[at] = static_cast<uint32_t>(at);
    }
    std::vector<TraceEvent> out = std::move(events_);
    events_ = {};
    return out;
}

}  // namespace tmasim::model
