#include "model/core/event_log.h"

#include <algorithm>
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

std::vector<TraceEvent> EventLog::sorted_events() const {
    std::vector<TraceEvent> out = events_;
    // Stable: events equal in every key keep the (deterministic) order they happened in.
    std::stable_sort(out.begin(), out.end(), [](const TraceEvent& a, const TraceEvent& b) {
        return std::tie(a.cta, a.t, a.op, a.warp, a.lane, a.kind, a.iters, a.what) <
               std::tie(b.cta, b.t, b.op, b.warp, b.lane, b.kind, b.iters, b.what);
    });
    return out;
}

}  // namespace tmasim::model
