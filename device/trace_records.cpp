#include "device/trace_records.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace tmasim::device {

namespace {

int64_t count_op_instances(const std::vector<Op>& ops, Expr::IntEnv& env, TraceLevel level) {
    int64_t total = 0;
    for (const Op& op : ops) {
        if (op.kind != OpKind::loop) {
            total += op_traced(op, level) ? 1 : 0;
            continue;
        }
        const int64_t n = op.loop_count.eval_int(env);
        for (int64_t i = 0; i < n; ++i) {
            env[op.var] = i;
            total += count_op_instances(op.body, env, level);
        }
        env.erase(op.var);
    }
    return total;
}

// Every instance of every op in one CTA, program order: op id -> loop indices per instance.
void list_instances(const std::vector<Op>& ops, Expr::IntEnv& env, std::vector<int64_t>& iters,
                    std::map<int, std::vector<std::vector<int64_t>>>& out) {
    for (const Op& op : ops) {
        if (op.kind != OpKind::loop) {
            out[op.id].push_back(iters);
            continue;
        }
        const int64_t n = op.loop_count.eval_int(env);
        iters.push_back(0);
        for (int64_t i = 0; i < n; ++i) {
            env[op.var] = i;
            iters.back() = i;
            list_instances(op.body, env, iters, out);
        }
        iters.pop_back();
        env.erase(op.var);
    }
}

int kind_of(const DeviceRecord& d) { return static_cast<int>(d.meta & 7u); }

}  // namespace

int64_t records_per_warp(const Scenario& s, TraceLevel level) {
    int64_t most = 0;
    for (int cta = 0; cta < s.launch.num_ctas(); ++cta) {
        Expr::IntEnv env{{"cta", cta}, {"rank", cta % s.launch.cluster_size()}};
        most = std::max(most, 4 + count_op_instances(s.program, env, level));
    }
    return most;
}

std::vector<TraceRecord> widen_records(const Scenario& s, const std::vector<DeviceRecord>& regions,
                                       unsigned capacity, int sm_clock_mhz) {
    const int warps_per_cta = s.launch.num_warps();
    const size_t warps = capacity == 0 ? 0 : regions.size() / capacity;
    // The line through a warp's entry and exit: (clock, ns) pairs.
    struct Line {
        bool entry = false;
        uint64_t clk0 = 0, ns0 = 0;
        double ns_per_clk = 0;  // 0: no exit record
    };
    std::vector<Line> lines(warps);
    std::map<int, double> cta_rate;
    for (size_t w = 0; w < warps; ++w) {
        const DeviceRecord* r = regions.data() + w * capacity;
        bool exited = false;
        uint64_t clk1 = 0, ns1 = 0;
        for (unsigned i = 0; i + 1 < capacity; ++i) {
            if (kind_of(r[i + 1]) != kRecordTimer) continue;
            if (kind_of(r[i]) == kRecordEntry) lines[w] = {true, r[i].clk, r[i + 1].clk, 0};
            if (kind_of(r[i]) == kRecordExit) exited = true, clk1 = r[i].clk, ns1 = r[i + 1].clk;
        }
        if (lines[w].entry && exited && clk1 > lines[w].clk0 && ns1 >= lines[w].ns0) {
            lines[w].ns_per_clk = static_cast<double>(ns1 - lines[w].ns0) / static_cast<double>(clk1 - lines[w].clk0);
            cta_rate.emplace(static_cast<int>(w) / warps_per_cta, lines[w].ns_per_clk);
        }
    }
    const double nominal = sm_clock_mhz > 0 ? 1000.0 / sm_clock_mhz : 0.5;
    std::vector<TraceRecord> out;
    std::map<int, std::map<int, std::vector<std::vector<int64_t>>>> instances;  // per CTA
    for (size_t w = 0; w < warps; ++w) {
        if (!lines[w].entry) continue;
        const int cta = static_cast<int>(w) / warps_per_cta;
        auto found = instances.find(cta);
        if (found == instances.end()) {
            Expr::IntEnv env{{"cta", cta}, {"rank", cta % s.launch.cluster_size()}};
            std::vector<int64_t> iters;
            found = instances.emplace(cta, std::map<int, std::vector<std::vector<int64_t>>>{}).first;
            list_instances(s.program, env, iters, found->second);
        }
        double rate = lines[w].ns_per_clk;
        if (rate == 0) rate = cta_rate.count(cta) ? cta_rate[cta] : nominal;
        const auto ns_at = [&](uint64_t clk) {
            const double d = static_cast<double>(static_cast<int64_t>(clk - lines[w].clk0)) * rate;
            return static_cast<uint64_t>(static_cast<int64_t>(lines[w].ns0) + std::llround(d));
        };
        std::map<int, size_t> seen;  // op -> instances recorded so far by this warp
        const DeviceRecord* r = regions.data() + w * capacity;
        for (unsigned i = 0; i < capacity; ++i) {
            const int kind = kind_of(r[i]);
            if (kind == kRecordEmpty || kind == kRecordTimer) continue;
            TraceRecord t{};
            t.cta = cta;
            t.warp = static_cast<int>(w) % warps_per_cta;
            t.kind = kind;
            t.ended = static_cast<int>((r[i].meta >> 3) & 1u);
            t.clk_begin = r[i].clk;
            // The end clock's low word: the op took (end - clk) mod 2^32 cycles (2.1 s at 2 GHz).
            t.clk_end = r[i].clk + static_cast<uint32_t>(r[i].end - static_cast<uint32_t>(r[i].clk));
            if (kind == kRecordEntry || kind == kRecordExit) {
                t.op = -1;
                t.ns_begin = t.ns_end = i + 1 < capacity ? r[i + 1].clk : ns_at(r[i].clk);
                out.push_back(t);
                continue;
            }
            t.op = static_cast<int>(r[i].meta >> 9);
            t.lane = static_cast<int>((r[i].meta >> 4) & 31u);
            const auto& list = found->second[t.op];
            const size_t k = seen[t.op]++;
            if (k < list.size()) {
                t.niters = static_cast<int>(std::min<size_t>(list[k].size(), kMaxLoopDepth));
                for (int d = 0; d < t.niters; ++d) t.iters[d] = static_cast<int32_t>(list[k][static_cast<size_t>(d)]);
            }
            t.ns_begin = ns_at(t.clk_begin);
            t.ns_end = ns_at(t.clk_end);
            out.push_back(t);
        }
    }
    return out;
}

std::vector<CtaSpan> cta_spans(const std::vector<TraceRecord>& records, int num_ctas) {
    uint64_t ns0 = std::numeric_limits<uint64_t>::max();
    for (const TraceRecord& r : records)
        if (r.kind == kRecordEntry) ns0 = std::min(ns0, r.ns_begin);
    std::vector<CtaSpan> spans(static_cast<size_t>(std::max(0, num_ctas)));
    for (const TraceRecord& r : records) {
        if ((r.kind != kRecordEntry && r.kind != kRecordExit) || r.cta < 0 || r.cta >= num_ctas) continue;
        CtaSpan& s = spans[static_cast<size_t>(r.cta)];
        const int64_t t = static_cast<int64_t>(r.ns_begin - ns0);
        if (r.kind == kRecordEntry) s.entry_ns = s.entry_ns < 0 ? t : std::min(s.entry_ns, t);
        else s.exit_ns = std::max(s.exit_ns, t);
    }
    return spans;
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
        if (r.kind != kRecordOp && r.kind != kRecordWait) continue;
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
