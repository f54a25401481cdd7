#include "model/core/event_log.h"

#include <algorithm>
#include <cstdint>
#include <tuple>

namespace tmasim::model {

namespace {
TraceEvent make_event(const EventSite& s, EventKind kind, int64_t t) {
    TraceEvent e;
    e.op = s.op;
    e.iters = s.iters;
    e.cta = s.cta;
    e.warp = s.warp;
    e.lane = s.lane;
    e.kind = kind;
    e.t = t;
    return e;
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

void EventLog::add(const EventSite& site, EventKind kind, int64_t t,
                   std::map<std::string, std::string> detail) {
    TraceEvent e = make_event(site, kind, t);
    e.detail = std::move(detail);
    events_.push_back(std::move(e));
}

void EventLog::add_model_only(const EventSite& site, const std::string& what, int64_t t,
                              std::map<std::string, std::string> detail) {
    TraceEvent e = make_event(site, EventKind::state, t);
    e.model_only = true;
    e.what = what;
    e.detail = std::move(detail);
    events_.push_back(std::move(e));
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
    // Stable: events equal in every key keep the (deterministic) order they happened in.
    // The sort permutes indices, and each event is moved once, into its place.
    std::vector<uint32_t> order(events_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [this](uint32_t x, uint32_t y) {
        const TraceEvent& a = events_[x];
        const TraceEvent& b = events_[y];
        return std::tie(a.cta, a.t, a.op, a.warp, a.lane, a.kind, a.iters, a.what) <
               std::tie(b.cta, b.t, b.op, b.warp, b.lane, b.kind, b.iters, b.what);
    });
    std::vector<TraceEvent> out;
    out.reserve(events_.size());
    for (uint32_t i : order) out.push_back(std::move(events_[i]));
    events_.clear();
    return out;
}

}  // namespace tmasim::model
