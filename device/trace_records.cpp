#include "device/trace_records.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

namespace tmasim::device {

namespace {

int64_t count_op_instances(const std::vector<Op>& ops, Expr::IntEnv& env) {
    int64_t total = 0;
    for (const Op& op : ops) {
        if (op.kind != OpKind::loop) {
            ++total;
            continue;
        }
        const int64_t n = op.loop_count.eval_int(env);
        for (int64_t i = 0; i < n; ++i) {
            env[op.var] = i;
            total += count_op_instances(op.body, env);
        }
        env.erase(op.var);
    }
    return total;
}

}  // namespace

int64_t records_per_warp(const Scenario& s) {
    int64_t most = 0;
    for (int cta = 0; cta < s.launch.num_ctas(); ++cta) {
        Expr::IntEnv env{{"cta", cta}, {"rank", cta % s.launch.cluster_size()}};
        most = std::max(most, 1 + count_op_instances(s.program, env));
    }
    return most;
}

std::vector<TraceEvent> decode_trace(const std::vector<TraceRecord>& records) {
    std::map<int, uint64_t> t0;  // per CTA
    uint64_t ns0 = std::numeric_limits<uint64_t>::max();
    for (const TraceRecord& r : records) {
        if (r.kind != kRecordEntry) continue;
        auto [it, fresh] = t0.emplace(r.cta, r.clk_begin);
        if (!fresh) it->second = std::min(it->second, r.clk_begin);
        ns0 = std::min(ns0, r.ns_begin);
    }
    if (ns0 == std::numeric_limits<uint64_t>::max()) ns0 = 0;

    std::vector<TraceEvent> events;
    events.reserve(records.size() * 2);
    for (const TraceRecord& r : records) {
        if (r.kind == kRecordEntry) continue;
        TraceEvent e;
        e.op = r.op;
        e.iters.assign(r.iters, r.iters + std::clamp(r.niters, 0, kMaxLoopDepth));
        e.cta = r.cta;
        e.warp = r.warp;
        e.lane = r.lane;
        const auto base = t0.find(r.cta);
        const uint64_t c0 = base == t0.end() ? r.clk_begin : base->second;
        const bool wait = r.kind == kRecordWait;
        e.kind = wait ? EventKind::wait_begin : EventKind::issue;
        e.t = static_cast<int64_t>(r.clk_begin - c0);
        e.t_ns = static_cast<int64_t>(r.ns_begin - ns0);
        events.push_back(e);
        if (!r.ended) continue;
        e.kind = wait ? EventKind::wait_end : EventKind::complete;
        e.t = static_cast<int64_t>(r.clk_end - c0);
        e.t_ns = static_cast<int64_t>(r.ns_end - ns0);
        events.push_back(e);
    }
    std::stable_sort(events.begin(), events.end(), [](const TraceEvent& a, const TraceEvent& b) {
        return std::tie(a.cta, a.t, a.op, a.warp, a.lane, a.kind) <
               std::tie(b.cta, b.t, b.op, b.warp, b.lane, b.kind);
    });
    return events;
}

}  // namespace tmasim::device
