#include "device/launch/trace_records.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

namespace tmasim::device {

namespace {

constexpr uint64_t kNever = ~uint64_t{0};
constexpr uint32_t kNone32 = ~uint32_t{0};

// The ops a trace calls waits (wait_begin / wait_end); the others give issue / complete.
bool op_is_wait(OpKind k) {
    return k == OpKind::mbarrier_wait || k == OpKind::sync || k == OpKind::bar_sync || k == OpKind::bulk_wait_group ||
           k == OpKind::bulk_wait_group_read || k == OpKind::cp_async_wait_group || k == OpKind::cp_async_wait_all ||
           k == OpKind::wgmma_wait_group;
}

// Whether warp `warp`'s threads run `op`, and at which lane its record is kept: the lane
// the kernel's recorder predicate picks (kernel_writer.cpp threads_of).
struct WarpRole {
    bool runs = false;
    int lane = 0;
};
WarpRole role_of(const Op& op, const Expr::IntEnv& env, int warp, int block, int leader_lane) {
    const Selector& by = op.by;
    const int first = warp * 32, lanes = std::max(0, std::min(32, block - first));
    switch (by.kind) {
    case Selector::Kind::all: return {lanes > 0, 0};
    case Selector::Kind::warp: return {warp == by.n, 0};
    case Selector::Kind::thread: return {warp == by.n / 32, by.n % 32};
    case Selector::Kind::elected: return {warp == by.n, leader_lane};
    case Selector::Kind::not_elected:
        return {warp != by.n ? lanes > 0 : lanes > 1, (warp == by.n && leader_lane == 0) ? 1 : 0};
    case Selector::Kind::predicate: {
        Expr::IntEnv scratch = env;  // the instance's loop variables, for a per_iteration selector
        for (int l = 0; l < lanes; ++l)
            if (by.includes_at(first + l, scratch)) return {true, l};
        return {};
    }
    }
    return {};
}

struct WarpRegion {
    WarpTraceHeader h{};
    const uint32_t* words = nullptr;
    bool entered() const { return h.entry_clock != kNever; }
    bool exited() const { return h.exit_clock != kNever && h.exit_ns != kNever && h.words != kNone32; }
};

WarpRegion read_region(const std::vector<uint32_t>& buffer, const TraceBufferLayout& layout, int64_t index) {
    WarpRegion r;
    const uint32_t* base = buffer.data() + index * layout.stride;
    std::memcpy(&r.h, base, sizeof r.h);
    r.words = base + kTraceHeaderWords;
    return r;
}

// The clock-to-ns line through a warp's entry and exit (0 rate: no exit).
struct ClockLine {
    uint64_t clk0 = 0, ns0 = 0;
    double ns_per_clk = 0;
};
ClockLine line_of(const WarpRegion& r) {
    ClockLine l{r.h.entry_clock, r.h.entry_ns, 0};
    if (r.exited() && r.h.exit_clock > r.h.entry_clock && r.h.exit_ns >= r.h.entry_ns)
        l.ns_per_clk = static_cast<double>(r.h.exit_ns - r.h.entry_ns) / static_cast<double>(r.h.exit_clock - r.h.entry_clock);
    return l;
}

template <class NsAt>
TraceRecord op_record(const Op& op, const std::vector<int64_t>& iters, int cta, int warp, int lane, uint64_t begin,
                      uint64_t end, bool ended, const NsAt& ns_at) {
    TraceRecord t{};
    t.op = op.id;
    t.cta = cta;
    t.warp = warp;
    t.lane = lane;
    t.kind = op_is_wait(op.kind) ? kRecordWait : kRecordOp;
    t.ended = ended ? 1 : 0;
    t.niters = static_cast<int>(std::min<size_t>(iters.size(), kMaxLoopDepth));
    for (int d = 0; d < t.niters; ++d) t.iters[d] = static_cast<int32_t>(iters[static_cast<size_t>(d)]);
    t.clk_begin = begin;
    t.clk_end = end;
    t.ns_begin = ns_at(begin);
    t.ns_end = ns_at(end);
    return t;
}

}  // namespace

std::vector<TraceRecord> decode_warp_regions(const Scenario& s, const TracePlan& plan, const TraceBufferLayout& layout,
                                             const std::vector<uint32_t>& buffer, int sm_clock_mhz) {
    const int warps_per_cta = s.launch.num_warps();
    if (static_cast<int64_t>(buffer.size()) < layout.warps * layout.stride)
        throw std::runtime_error("trace buffer smaller than its layout");
    const double nominal = sm_clock_mhz > 0 ? 1000.0 / sm_clock_mhz : 0.5;
    std::vector<TraceRecord> out;
    for (int cta = 0; cta < s.launch.num_ctas(); ++cta) {
        std::vector<WarpRegion> regions;
        double cta_rate = 0;
        for (int w = 0; w < warps_per_cta; ++w) {
            regions.push_back(read_region(buffer, layout, int64_t{cta} * warps_per_cta + w));
            if (cta_rate == 0) cta_rate = line_of(regions.back()).ns_per_clk;
        }
        const std::vector<TracedInstance> instances = traced_instances(s, plan, cta);
        for (int w = 0; w < warps_per_cta; ++w) {
            const WarpRegion& r = regions[static_cast<size_t>(w)];
            if (!r.entered()) continue;
            ClockLine cl = line_of(r);
            if (cl.ns_per_clk == 0) cl.ns_per_clk = cta_rate != 0 ? cta_rate : nominal;
            const auto ns_at = [&](uint64_t clk) {
                const double d = static_cast<double>(static_cast<int64_t>(clk - cl.clk0)) * cl.ns_per_clk;
                return static_cast<uint64_t>(static_cast<int64_t>(cl.ns0) + std::llround(d));
            };
            TraceRecord edge{};
            edge.op = -1;
            edge.cta = cta;
            edge.warp = w;
            edge.kind = kRecordEntry;
            edge.ended = 1;
            edge.clk_begin = edge.clk_end = r.h.entry_clock;
            edge.ns_begin = edge.ns_end = r.h.entry_ns;
            out.push_back(edge);
            // Words stored: up to the exit's count, or up to the op a hang stopped.
            int64_t stored = r.exited() ? r.h.words : 0;
            const int64_t hang = r.h.hang_word == kNone32 ? int64_t{-1} : int64_t{r.h.hang_word};
            if (stored > layout.capacity || hang > layout.capacity)
                throw std::runtime_error(fmt::format("trace: CTA {} warp {} claims {} words, its region holds {}", cta, w,
                                                     std::max(stored, hang), layout.capacity));
            stored = std::max(stored, hang);
            // The words widened to 64 bits, each after the one before it.
            uint64_t clock = r.h.start_clock;
            const auto widen = [&clock](uint32_t low) {
                clock += static_cast<uint32_t>(low - static_cast<uint32_t>(clock));
                return clock;
            };
            uint64_t last = r.h.start_clock;  // the word the next op leans on
            for (const TracedInstance& in : instances) {
                if (in.folded) {
                    // Folded into a run: issue and complete where the run began (the word
                    // before it), once the words up to there were stored.
                    if (in.first_word > stored) break;
                    const WarpRole role = role_of(*in.op, in.env, w, s.launch.block, static_cast<int>(r.h.leader_lane & 31u));
                    if (role.runs) out.push_back(op_record(*in.op, in.iters, cta, w, role.lane, last, last, true, ns_at));
                    continue;
                }
                const int nwords = plan.words(*in.op);
                const int64_t end_word = in.first_word + nwords - 1;
                if (end_word >= stored && end_word != hang) break;
                const uint64_t begin = nwords == 2 ? widen(r.words[in.first_word]) : last;
                const bool ended = end_word != hang;
                const uint64_t end = ended ? widen(r.words[end_word]) : begin;
                last = end;
                const WarpRole role = role_of(*in.op, in.env, w, s.launch.block, static_cast<int>(r.h.leader_lane & 31u));
                if (role.runs) out.push_back(op_record(*in.op, in.iters, cta, w, role.lane, begin, end, ended, ns_at));
                if (!ended) break;
            }
            if (!r.exited()) continue;
            edge.kind = kRecordExit;
            edge.clk_begin = edge.clk_end = r.h.exit_clock;
            edge.ns_begin = edge.ns_end = r.h.exit_ns;
            out.push_back(edge);
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
