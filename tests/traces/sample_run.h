#pragma once
// Hand-made RunResults for the traces tests, and a field-by-field equality (RunResult has
// no operator==, and comparing written text would make the round trip test circular).
#include <sstream>
#include <string>

#include "scenarios/run_result.h"

namespace tmasim_test {

inline tmasim::TraceEvent make_event(int op, int warp, int lane, tmasim::EventKind kind, int64_t t,
                                     std::vector<int64_t> iters = {}) {
    tmasim::TraceEvent e;
    e.op = op;
    e.iters = std::move(iters);
    e.warp = warp;
    e.lane = lane;
    e.kind = kind;
    e.t = t;
    return e;
}

// A small but complete run: events of every flavour (loop indices, device timer, model-only
// with detail), a diagnostic, a global and a shared image.
inline tmasim::RunResult sample_run() {
    using tmasim::EventKind;
    tmasim::RunResult r;
    auto& p = r.provenance;
    p.backend = "model";
    p.tool_version = "0.1.0";
    p.scenario = "sample";
    p.scenario_file = "scenarios/catalog/guide/sample.yaml";
    p.scenario_hash = "0123456789abcdef";
    p.gpu = "h100-sxm";
    p.sm_clock_mhz = 1980;
    p.model_config = "h100-sxm";
    p.model_config_hash = "fedcba9876543210";
    p.seed = 18446744073709551615ull;  // the full uint64 range must survive JSON
    p.extra = {{"sm", "sm_90a"}, {"note", "quote \" and\nnewline"}};

    r.events.push_back(make_event(0, 0, 0, EventKind::issue, 10));
    r.events.push_back(make_event(0, 0, 0, EventKind::complete, 14));
    r.events.push_back(make_event(1, 0, 0, EventKind::wait_begin, 20, {0, 1}));
    tmasim::TraceEvent flip = make_event(1, 0, 0, EventKind::state, 300, {0, 1});
    flip.model_only = true;
    flip.what = "phase_flip";
    flip.detail = {{"barrier", "full[1]"}, {"parity", "1"}};
    r.events.push_back(flip);
    tmasim::TraceEvent end = make_event(1, 0, 0, EventKind::wait_end, 310, {0, 1});
    end.t_ns = 160;
    r.events.push_back(end);

    tmasim::Diagnostic d;
    d.outcome = tmasim::Outcome::hazard;
    d.rule = "proxy.generic_to_async";
    d.op = 1;
    d.iters = {0, 1};
    d.message = "#1 tma.store reads tile written by the generic proxy without fence.proxy.async";
    d.detail = {{"buffer", "tile"}};
    r.diagnostics.push_back(d);
    r.outcome = tmasim::Outcome::hazard;

    r.memory.push_back({"A", "global", 0, {0x00, 0x01, 0xab, 0xff, 0x10, 0x20, 0x30, 0x40}});
    r.memory.push_back({"tile", "shared", 0, {0xde, 0xad, 0xbe, 0xef}});
    return r;
}

inline bool same_event(const tmasim::TraceEvent& a, const tmasim::TraceEvent& b) {
    return a.op == b.op && a.iters == b.iters && a.cta == b.cta && a.warp == b.warp && a.lane == b.lane &&
           a.kind == b.kind && a.t == b.t && a.t_ns == b.t_ns && a.model_only == b.model_only &&
           a.what == b.what && a.detail == b.detail;
}

inline bool same_run(const tmasim::RunResult& a, const tmasim::RunResult& b) {
    const auto &pa = a.provenance, &pb = b.provenance;
    bool prov = pa.backend == pb.backend && pa.tool_version == pb.tool_version && pa.scenario == pb.scenario &&
                pa.scenario_file == pb.scenario_file && pa.scenario_hash == pb.scenario_hash &&
                pa.gpu == pb.gpu && pa.sm_clock_mhz == pb.sm_clock_mhz && pa.driver == pb.driver &&
                pa.cuda == pb.cuda && pa.model_config == pb.model_config &&
                pa.model_config_hash == pb.model_config_hash && pa.seed == pb.seed && pa.extra == pb.extra;
    if (!prov || a.outcome != b.outcome || a.events.size() != b.events.size() ||
        a.diagnostics.size() != b.diagnostics.size() || a.memory.size() != b.memory.size())
        return false;
    for (size_t i = 0; i < a.events.size(); ++i)
        if (!same_event(a.events[i], b.events[i])) return false;
    for (size_t i = 0; i < a.diagnostics.size(); ++i) {
        const auto &x = a.diagnostics[i], &y = b.diagnostics[i];
        if (x.outcome != y.outcome || x.rule != y.rule || x.op != y.op || x.iters != y.iters ||
            x.cta != y.cta || x.message != y.message || x.detail != y.detail)
            return false;
    }
    for (size_t i = 0; i < a.memory.size(); ++i) {
        const auto &x = a.memory[i], &y = b.memory[i];
        if (x.name != y.name || x.space != y.space || x.cta != y.cta || x.bytes != y.bytes) return false;
    }
    return true;
}

}  // namespace tmasim_test
