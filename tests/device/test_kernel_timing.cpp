// A rewritten kernel's timing buffer (device/kernels/ptx_timing.h) decoded into trace records and
// events, and the trace of a kernel run written from a fake buffer and read back.
#include <catch2/catch.hpp>

#include <cstring>

#include "device/kernels/kernel_timing.h"
#include "device/launch/trace_records.h"
#include "kernel_test_support.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

using namespace tmasim;
using namespace tmasim::device;

namespace {

// Two CTAs of 64 threads (two warps each); ops: a tensor load, an mbarrier wait, a store.
Scenario two_ctas() {
    Scenario s;
    s.name = "fake_kernel";
    s.file = "fake_kernel.yaml";
    s.launch.grid = {2};
    s.launch.block = 64;
    s.globals.push_back(GlobalTensor{});
    s.globals[0].name = "out";
    s.globals[0].type = DType::i32;
    s.globals[0].shape = {4};
    for (OpKind k : {OpKind::tma_load, OpKind::mbarrier_wait, OpKind::global_store}) {
        Op op;
        op.kind = k;
        op.id = static_cast<int>(s.program.size());
        s.program.push_back(op);
    }
    return s;
}

const TimingLayout kLayout{TraceLevel::all, 4};  // 64 + 4 * 16 = 128 bytes per thread

struct FakeBuffer {
    std::vector<uint8_t> bytes = std::vector<uint8_t>(128 * 128, 0xff);
    ThreadTimingHeader* header(int t) { return reinterpret_cast<ThreadTimingHeader*>(bytes.data() + 128 * t); }
    void thread(int t, uint64_t entry_clock, uint64_t entry_ns, uint64_t exit_clock, uint64_t exit_ns, uint32_t records) {
        ThreadTimingHeader h;
        std::memset(&h, 0xff, sizeof h);
        h.entry_clock = entry_clock;
        h.entry_ns = entry_ns;
        h.exit_clock = exit_clock;
        h.exit_ns = exit_ns;
        h.records = records;
        std::memcpy(header(t), &h, sizeof h);
    }
    void record(int t, int slot, uint64_t begin, uint32_t cycles, uint32_t op) {
        const TimingRecord r{begin, cycles, op};
        std::memcpy(bytes.data() + 128 * t + 64 + 16 * slot, &r, sizeof r);
    }
};

// CTA 0 runs at 0.5 ns per cycle (clock 5000 at 1000 ns, 7000 at 2000 ns), CTA 1 at 0.6;
// thread 63 never exits and thread 127 never entered (its region stays all ones).
FakeBuffer fake_buffer() {
    FakeBuffer b;
    for (int t = 0; t < 64; ++t) b.thread(t, 5000, 1000, 7000, 2000, 0);
    b.thread(63, 5000, 1000, ~0ull, ~0ull, ~0u);
    for (int t = 64; t < 127; ++t) b.thread(t, 9000, 1100, 11000, 2300, 0);
    // Warp 1 of CTA 0: op 1 by lane 5 at 6000 and by lane 7 at 5500, op 0 by lane 5.
    b.thread(37, 5000, 1000, 7000, 2000, 2);
    b.record(37, 0, 6000, 100, 1);
    b.record(37, 1, 5200, 10, 0);
    b.thread(39, 5000, 1000, 7000, 2000, 1);
    b.record(39, 0, 5500, 300, 1);
    // CTA 1's thread 0 made 6 records; 4 fit.
    b.thread(64, 9000, 1100, 11000, 2300, 6);
    for (int i = 0; i < 4; ++i) b.record(64, i, 9100 + 100 * i, 50, 2);
    return b;
}

const TraceEvent* event(const std::vector<TraceEvent>& ev, int op, int cta, int warp, int lane, int64_t iter, EventKind kind) {
    for (const TraceEvent& e : ev)
        if (e.op == op && e.cta == cta && e.warp == warp && e.lane == lane && e.iters == std::vector<int64_t>{iter} && e.kind == kind)
            return &e;
    return nullptr;
}

}  // namespace

TEST_CASE("the timing buffer decodes to the model's event keys, clocks and ns", "[device][kernel_timing]") {
    const Scenario s = two_ctas();
    const KernelTiming t = decode_kernel_timing(s, kLayout, fake_buffer().bytes, 1980);
    CHECK(t.records_dropped == 2);
    CHECK(t.threads_without_exit == 1);
    CHECK(t.threads_without_entry == 1);
    const std::vector<TraceEvent> ev = decode_trace(t.records);
    REQUIRE(ev.size() == 2 * 7);
    // Warp 1's instances of op 1 counted in the order they began, across its lanes.
    const TraceEvent* first = event(ev, 1, 0, 1, 7, 0, EventKind::wait_begin);
    const TraceEvent* second = event(ev, 1, 0, 1, 5, 1, EventKind::wait_begin);
    const TraceEvent* second_end = event(ev, 1, 0, 1, 5, 1, EventKind::wait_end);
    REQUIRE((first && second && second_end));
    CHECK(first->t == 500);
    CHECK(second->t == 1000);        // clock 6000 - the CTA's entry 5000
    CHECK(second->t_ns == 500);      // 1000 + 1000 * 0.5 ns, less the kernel's first entry (1000)
    CHECK(second_end->t == 1100);
    CHECK(second_end->t_ns == 550);
    const TraceEvent* load = event(ev, 0, 0, 1, 5, 0, EventKind::issue);
    REQUIRE(load);  // a tensor load: issue/complete
    CHECK(load->t == 200);
    const TraceEvent* store = event(ev, 2, 1, 0, 0, 3, EventKind::complete);
    REQUIRE(store);
    CHECK(store->t == 450);          // 9400 + 50 - 9000
    CHECK(store->t_ns == 100 + 270); // CTA 1 entered 100 ns after CTA 0; 450 cycles at 0.6 ns
    const std::vector<CtaSpan> spans = cta_spans(t.records, 2);
    CHECK((spans[0].entry_ns == 0 && spans[0].exit_ns == 1000));
    CHECK((spans[1].entry_ns == 100 && spans[1].exit_ns == 1300));
}

TEST_CASE("a timing buffer no rewrite could have written is refused", "[device][kernel_timing]") {
    const Scenario s = two_ctas();
    FakeBuffer b = fake_buffer();
    CHECK_THROWS_WITH(decode_kernel_timing(s, kLayout, std::vector<uint8_t>(100), 1980),
                      Catch::Contains("timing buffer of 100 bytes; 128 threads of 128 bytes each make 16384"));
    b.record(39, 0, 5500, 300, 7);
    CHECK_THROWS_WITH(decode_kernel_timing(s, kLayout, b.bytes, 1980), Catch::Contains("thread 39 record 0 names op 7; the kernel has 3 ops"));
}

TEST_CASE("the trace of a kernel run written from a fake timing buffer reads back", "[device][kernel_timing]") {
    const Scenario s = two_ctas();
    FakeBuffer b = fake_buffer();
    b.thread(63, 5000, 1000, 7000, 2000, 0);  // every thread exits: the kernel has a span
    TimingRewrite rewrite;
    rewrite.layout = kLayout;
    rewrite.summary = "entry and 1 exit: %globaltimer and %clock64 per thread";
    KernelRunPieces pieces;
    pieces.untouched_ms = 0.0123;
    pieces.rewritten_ms = 0.0125;
    MemoryImage out;
    out.name = "out";
    out.space = "global";
    out.bytes = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0};
    pieces.memory = {out};
    out.bytes[0] = 9;
    pieces.rewritten_memory = {out};
    pieces.timing = b.bytes;
    RunResult r;
    r.provenance = provenance_for(s, "device");
    r.provenance.gpu = "NVIDIA H200";
    r.provenance.sm_clock_mhz = 1980;
    add_kernel_run(r, s, rewrite, pieces, 1980);
    CHECK(r.provenance.extra.at("kernel_time_ns") == "12300");
    CHECK(r.provenance.extra.at("rewritten_kernel_time_ns") == "12500");
    CHECK(r.provenance.extra.at("kernel_span_ns") == "1300");
    CHECK(r.provenance.extra.at("cta_span_ns") == "0-1000 100-1300");
    CHECK(r.provenance.extra.at("rewritten_memory") == "differs: out");
    CHECK(r.provenance.extra.at("timing_records_dropped") == "2");
    CHECK(r.provenance.extra.count("timing_threads_without_exit") == 0);

    test::ScratchDir dir("kernel-trace");
    write_trace_file(r, dir.file("t.jsonl"), op_names_of(s));
    const RunResult back = read_trace(dir.file("t.jsonl"));
    CHECK(back.provenance.extra == r.provenance.extra);
    REQUIRE(back.events.size() == r.events.size());
    CHECK(back.events.size() == 14);
    const TraceEvent* e = event(back.events, 1, 0, 1, 5, 1, EventKind::wait_end);
    REQUIRE(e);
    CHECK((e->t == 1100 && e->t_ns == 550));
    REQUIRE(back.memory.size() == 1);
    CHECK(back.memory[0].bytes == pieces.memory[0].bytes);  // the kernel as written, not the rewrite
    CHECK(back.outcome == Outcome::ok);
}
