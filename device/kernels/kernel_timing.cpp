#include "device/kernels/kernel_timing.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "device/launch/trace_records.h"

namespace tmasim::device {

namespace {

constexpr uint64_t kTimingNever = ~uint64_t{0};

// The line from clocks to %globaltimer ns of one CTA (all its threads read one SM's clock).
struct CtaClockLine {
    bool have_entry = false, have_exit = false;
    uint64_t entry_clock = 0, entry_ns = 0, exit_clock = 0, exit_ns = 0;
    uint64_t ns_at(uint64_t clock, int sm_clock_mhz) const {
        const double dc = static_cast<double>(static_cast<int64_t>(clock - entry_clock));
        double per_cycle = sm_clock_mhz > 0 ? 1000.0 / sm_clock_mhz : 1.0;
        if (have_exit && exit_clock > entry_clock && exit_ns >= entry_ns)
            per_cycle = static_cast<double>(exit_ns - entry_ns) / static_cast<double>(exit_clock - entry_clock);
        return entry_ns + static_cast<uint64_t>(std::llround(dc * per_cycle));
    }
};

struct RawTimingRecord {
    int cta, warp, lane;
    TimingRecord rec;
};

}  // namespace

KernelTiming decode_kernel_timing(const Scenario& s, const TimingLayout& layout, const std::vector<uint8_t>& buffer,
                                  int sm_clock_mhz) {
    const int64_t block = s.launch.block, threads = int64_t(s.launch.num_ctas()) * block;
    const int64_t stride = layout.thread_bytes();
    if (static_cast<int64_t>(buffer.size()) != threads * stride)
        throw std::runtime_error(fmt::format("timing buffer of {} bytes; {} threads of {} bytes each make {}", buffer.size(), threads,
                                             stride, threads * stride));
    const bool clocks = layout.level != TraceLevel::none;
    KernelTiming out;
    std::vector<CtaClockLine> lines(static_cast<size_t>(s.launch.num_ctas()));
    std::vector<ThreadTimingHeader> headers(static_cast<size_t>(threads));
    for (int64_t t = 0; t < threads; ++t) {
        ThreadTimingHeader& h = headers[static_cast<size_t>(t)];
        std::memcpy(&h, buffer.data() + t * stride, sizeof h);
        CtaClockLine& cl = lines[static_cast<size_t>(t / block)];
        if (clocks && h.entry_ns != kTimingNever && h.entry_clock != kTimingNever && (!cl.have_entry || h.entry_clock < cl.entry_clock)) {
            cl.have_entry = true;
            cl.entry_clock = h.entry_clock;
            cl.entry_ns = h.entry_ns;
        }
        if (clocks && h.exit_ns != kTimingNever && h.exit_clock != kTimingNever && (!cl.have_exit || h.exit_clock > cl.exit_clock)) {
            cl.have_exit = true;
            cl.exit_clock = h.exit_clock;
            cl.exit_ns = h.exit_ns;
        }
    }
    std::vector<RawTimingRecord> raw;
    for (int64_t t = 0; t < threads; ++t) {
        const ThreadTimingHeader& h = headers[static_cast<size_t>(t)];
        TraceRecord edge{};
        edge.op = -1;
        edge.cta = static_cast<int32_t>(t / block);
        edge.warp = static_cast<int32_t>(t % block / 32);
        edge.lane = static_cast<int32_t>(t % 32);
        edge.ended = 1;
        if (h.entry_ns == kTimingNever) {
            ++out.threads_without_entry;
            continue;
        }
        edge.kind = kRecordEntry;
        edge.clk_begin = edge.clk_end = clocks ? h.entry_clock : 0;
        edge.ns_begin = edge.ns_end = h.entry_ns;
        out.records.push_back(edge);
        if (h.exit_ns == kTimingNever) {
            ++out.threads_without_exit;
        } else {
            edge.kind = kRecordExit;
            edge.clk_begin = edge.clk_end = clocks ? h.exit_clock : 0;
            edge.ns_begin = edge.ns_end = h.exit_ns;
            out.records.push_back(edge);
        }
        if (!clocks || h.records == ~uint32_t{0}) continue;  // a thread that never reached an exit wrote no count
        const int64_t stored = std::min<int64_t>(h.records, layout.records_per_thread);
        out.records_dropped += static_cast<int64_t>(h.records) - stored;
        for (int64_t i = 0; i < stored; ++i) {
            RawTimingRecord r{edge.cta, edge.warp, edge.lane, {}};
            std::memcpy(&r.rec, buffer.data() + t * stride + int64_t(sizeof(ThreadTimingHeader)) + i * int64_t(sizeof(TimingRecord)),
                        sizeof r.rec);
            if (r.rec.op >= s.program.size())
                throw std::runtime_error(fmt::format("timing buffer: thread {} record {} names op {}; the kernel has {} ops", t, i,
                                                     r.rec.op, s.program.size()));
            raw.push_back(r);
        }
    }
    // The warp's instances of an op in the order they began: that order is the loop index.
    std::stable_sort(raw.begin(), raw.end(), [](const RawTimingRecord& a, const RawTimingRecord& b) {
        return std::tie(a.cta, a.warp, a.rec.op, a.rec.begin_clock, a.lane) <
               std::tie(b.cta, b.warp, b.rec.op, b.rec.begin_clock, b.lane);
    });
    int64_t instance = 0;
    for (size_t i = 0; i < raw.size(); ++i) {
        const RawTimingRecord& r = raw[i];
        const bool same = i > 0 && raw[i - 1].cta == r.cta && raw[i - 1].warp == r.warp && raw[i - 1].rec.op == r.rec.op;
        instance = same ? instance + 1 : 0;
        const CtaClockLine& cl = lines[static_cast<size_t>(r.cta)];
        TraceRecord tr{};
        tr.op = static_cast<int32_t>(r.rec.op);
        tr.cta = r.cta;
        tr.warp = r.warp;
        tr.lane = r.lane;
        tr.kind = is_kernel_wait(s.program[r.rec.op].kind) ? kRecordWait : kRecordOp;
        tr.ended = 1;
        tr.niters = 1;
        tr.iters[0] = static_cast<int32_t>(instance);
        tr.clk_begin = r.rec.begin_clock;
        tr.clk_end = r.rec.begin_clock + r.rec.cycles;
        tr.ns_begin = cl.ns_at(tr.clk_begin, sm_clock_mhz);
        tr.ns_end = cl.ns_at(tr.clk_end, sm_clock_mhz);
        out.records.push_back(tr);
    }
    return out;
}

void add_kernel_run(RunResult& r, const Scenario& s, const TimingRewrite& rewrite, const KernelRunPieces& pieces,
                    int sm_clock_mhz) {
    Provenance& p = r.provenance;
    const KernelTiming timing = decode_kernel_timing(s, rewrite.layout, pieces.timing, sm_clock_mhz);
    r.events = decode_trace(timing.records);
    r.events_sorted = false;
    r.memory = pieces.memory;
    p.extra["kernel_time_ns"] = std::to_string(std::llround(pieces.untouched_ms * 1e6));
    p.extra["rewritten_kernel_time_ns"] = std::to_string(std::llround(pieces.rewritten_ms * 1e6));
    const std::vector<CtaSpan> spans = cta_spans(timing.records, s.launch.num_ctas());
    int64_t first = -1, last = -1;
    std::string per_cta;
    for (const CtaSpan& c : spans) {
        per_cta += fmt::format("{}{}-{}", per_cta.empty() ? "" : " ", c.entry_ns, c.exit_ns);
        if (c.entry_ns >= 0) first = first < 0 ? c.entry_ns : std::min(first, c.entry_ns);
        last = std::max(last, c.exit_ns);
    }
    // No span once a CTA never exited: the last exit would not be the kernel's end.
    if (first >= 0 && last >= first && timing.threads_without_exit == 0) p.extra["kernel_span_ns"] = std::to_string(last - first);
    p.extra["cta_span_ns"] = per_cta;
    p.extra["ptx_rewrite"] = rewrite.summary;
    if (rewrite.layout.records_per_thread > 0)
        p.extra["timing_records_per_thread"] = std::to_string(rewrite.layout.records_per_thread);
    if (timing.records_dropped > 0) p.extra["timing_records_dropped"] = std::to_string(timing.records_dropped);
    if (timing.threads_without_exit > 0) p.extra["timing_threads_without_exit"] = std::to_string(timing.threads_without_exit);
    std::string differs;
    for (const MemoryImage& m : pieces.memory) {
        const auto other = std::find_if(pieces.rewritten_memory.begin(), pieces.rewritten_memory.end(),
                                        [&](const MemoryImage& o) { return o.name == m.name && o.space == m.space; });
        if (other == pieces.rewritten_memory.end() || other->bytes != m.bytes) differs += (differs.empty() ? "" : ", ") + m.name;
    }
    p.extra["rewritten_memory"] = differs.empty() ? "equal" : "differs: " + differs;
}

}  // namespace tmasim::device
