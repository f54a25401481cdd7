// The trace plan (which ops store clock words, how many), the trace buffer's layout, its
// decoding into records, and records -> trace events: per-CTA t0, kernel-wide ns base, pairs
// of events, timed-out waits, sort order.
#include <catch2/catch.hpp>

#include <cstring>

#include "device/launch/trace_records.h"
#include "device_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;
using namespace tmasim::device;

namespace {
TraceRecord rec(int op, int cta, int warp, int lane, int kind, int ended, uint64_t c0, uint64_t c1,
                uint64_t n0, uint64_t n1, std::vector<int> iters = {}) {
    TraceRecord r{};
    r.op = op; r.cta = cta; r.warp = warp; r.lane = lane; r.kind = kind; r.ended = ended;
    r.niters = static_cast<int>(iters.size());
    for (size_t i = 0; i < iters.size(); ++i) r.iters[i] = iters[i];
    r.clk_begin = c0; r.clk_end = c1; r.ns_begin = n0; r.ns_end = n1;
    return r;
}
}  // namespace

TEST_CASE("trace records decode into sorted events relative to each CTA's start", "[device][trace]") {
    const std::vector<TraceRecord> records = {
        rec(5, 0, 1, 0, kRecordWait, 1, 1500, 1900, 10064, 10224),
        rec(-1, 0, 1, 0, kRecordEntry, 1, 1010, 1010, 10032, 10032),
        rec(-1, 0, 0, 0, kRecordEntry, 1, 1000, 1000, 10000, 10000),
        rec(2, 0, 0, 3, kRecordOp, 1, 1100, 1120, 10032, 10032, {2}),
        rec(-1, 1, 0, 0, kRecordEntry, 1, 50, 50, 10064, 10064),
        rec(5, 1, 0, 0, kRecordWait, 0, 80, 80, 10096, 11096),  // timed out
    };
    const std::vector<TraceEvent> ev = decode_trace(records);
    REQUIRE(ev.size() == 5);
    CHECK(ev[0].op == 2);
    CHECK(ev[0].iters == std::vector<int64_t>{2});
    CHECK(ev[0].lane == 3);
    CHECK(ev[0].kind == EventKind::issue);
    CHECK(ev[0].t == 100);
    CHECK(ev[0].t_ns == 32);
    CHECK(ev[1].kind == EventKind::complete);
    CHECK(ev[1].t == 120);
    CHECK(ev[2].kind == EventKind::wait_begin);
    CHECK(ev[2].t == 500);
    CHECK(ev[3].kind == EventKind::wait_end);
    CHECK(ev[3].t == 900);
    CHECK(ev[3].t_ns == 224);
    CHECK(ev[4].cta == 1);
    CHECK(ev[4].kind == EventKind::wait_begin);  // no wait_end for the timed-out wait
    CHECK(ev[4].t == 30);
}

TEST_CASE("the trace plan gives each timed op one clock word, two where the op before it was not timed",
          "[device][trace]") {
    const Scenario flat = load_scenario_file(test::source_dir() +
                                             "/scenarios/catalog/guide/tma_2d_load_modify_store.yaml");
    // 13 ops, two of them an elected arrive_expect_tx folded into the copy after it.
    CHECK(trace_words_per_warp(flat, plan_trace(flat, TraceLevel::all)) == 11);
    CHECK(trace_words_per_warp(flat, plan_trace(flat, TraceLevel::none)) == 0);
    const Scenario looped = load_scenario_text(R"(
scenario: looped
launch: {grid: [3], block: 32}
shared:
  s: {type: f32, shape: [32]}
program:
  - {op: sync}
  - op: loop
    var: i
    count: "cta + 2"
    body:
      - {op: compute, buffer: s, fn: "x + 1"}
      - op: loop
        var: j
        count: "i"
        body:
          - {op: sync}
)", "looped.yaml");
    // Largest CTA (cta 2): sync, then i = 0..3 gives 4 computes and 0+1+2+3 inner syncs.
    const TracePlan all = plan_trace(looped, TraceLevel::all);
    CHECK(trace_words_per_warp(looped, all) == 1 + 4 + 6);
    // Only the syncs are timed: the first begins at the prologue's clock, the inner ones
    // follow an untimed compute or their own previous iteration, so they store a begin too.
    const TracePlan waits = plan_trace(looped, TraceLevel::waits);
    CHECK(waits.words_of_op == std::vector<int>{1, 0, 0, 0, 2});
    CHECK(trace_words_per_warp(looped, waits) == 1 + 2 * 6);
    const TraceBufferLayout layout = trace_buffer_layout(looped, waits);
    CHECK(layout.warps == 3);
    CHECK(layout.capacity == 13);
    CHECK(layout.stride == kTraceHeaderWords + 16);  // 13 words, padded to 16 bytes
}

TEST_CASE("an op with trace: false stores nothing, and the op after it stores its own begin", "[device][trace]") {
    const Scenario s = load_scenario_text(R"(
scenario: opt_out
launch: {grid: [1], block: 32}
shared:
  s: {type: f32, shape: [32]}
program:
  - op: loop
    var: i
    count: 3
    body:
      - {op: sync}
      - {op: compute, buffer: s, fn: "x + 1", trace: false}
      - {op: sync}
      - {op: compute, buffer: s, fn: "x + 1", trace: false}
)", "opt_out.yaml");
    // The body ends with an untimed op, so its first sync cannot lean on the word before it.
    const TracePlan all = plan_trace(s, TraceLevel::all);
    CHECK(all.words_of_op == std::vector<int>{0, 2, 0, 2, 0});
    // At level none, `trace: true` times the op anyway.
    const Scenario forced = load_scenario_text(R"(
scenario: opt_in
launch: {grid: [1], block: 32}
program:
  - {op: sync}
  - {op: sync, trace: true}
)", "opt_in.yaml");
    CHECK(plan_trace(forced, TraceLevel::none).words_of_op == std::vector<int>{0, 2});
}

namespace {
// A trace buffer as a kernel leaves it: all ones, then what the warps wrote.
struct FakeBuffer {
    TraceBufferLayout layout;
    std::vector<uint32_t> words;
    explicit FakeBuffer(const TraceBufferLayout& l) : layout(l), words(static_cast<size_t>(l.warps * l.stride), ~0u) {}
    void set_header(int warp, const WarpTraceHeader& h) {
        std::memcpy(&words[static_cast<size_t>(warp * layout.stride)], &h, sizeof h);
    }
    uint32_t& word(int warp, int i) { return words[static_cast<size_t>(warp * layout.stride + kTraceHeaderWords + i)]; }
};
}  // namespace

TEST_CASE("clock words decode with loop indices from the plan, lanes from the selectors, ns from entry and exit",
          "[device][trace]") {
    const Scenario s = load_scenario_text(R"(
scenario: widen
launch: {grid: [1], block: 64}
shared:
  s: {type: f32, shape: [32]}
program:
  - op: loop
    var: i
    count: 2
    body:
      - {op: compute, buffer: s, fn: "x + 1", by: warp1}
      - {op: sync}
      - {op: compute, buffer: s, fn: "x + 1", by: elected1}
)", "widen.yaml");
    const TracePlan plan = plan_trace(s, TraceLevel::all);
    FakeBuffer b(trace_buffer_layout(s, plan));
    REQUIRE(b.layout.capacity == 6);
    // Warp 0 (runs only the syncs): entry at clock 1000 / 5000 ns, exit at 3000 / 6000 ns.
    b.set_header(0, WarpTraceHeader{1000, 5000, 1100, 3000, 6000, 6, 3, ~0u, 0, 0});
    const uint32_t w0[] = {1150, 1400, 1420, 2150, 2250, 2260};
    for (int i = 0; i < 6; ++i) b.word(0, i) = w0[i];
    // Warp 1: its compute, sync and elected compute of iteration 0, then a sync that never
    // ended (hang_word 4: the second iteration's sync), no exit.
    b.set_header(1, WarpTraceHeader{1010, 5032, 1090, ~0ull, ~0ull, ~0u, 5, 4, 0, 0});
    const uint32_t w1[] = {1140, 1300, 1330, 1400};
    for (int i = 0; i < 4; ++i) b.word(1, i) = w1[i];
    const std::vector<TraceRecord> r = decode_warp_regions(s, plan, b.layout, b.words, 1000);
    // Warp 0: entry, 2 syncs, exit. Warp 1: entry, compute, sync, compute, compute, hung sync.
    REQUIRE(r.size() == 4 + 6);
    CHECK(r[0].kind == kRecordEntry);
    CHECK(r[1].op == 2);
    CHECK(r[1].kind == kRecordWait);
    CHECK(r[1].iters[0] == 0);
    CHECK(r[1].clk_begin == 1150);  // the skipped compute's word is where the sync begins
    CHECK(r[1].clk_end == 1400);
    CHECK(r[1].ns_begin == 5075);   // 5000 + 150 * 0.5
    CHECK(r[2].iters[0] == 1);
    CHECK(r[2].clk_begin == 2150);
    CHECK(r[2].clk_end == 2250);
    CHECK(r[3].kind == kRecordExit);
    CHECK(r[3].ns_begin == 6000);
    CHECK(r[5].op == 1);
    CHECK(r[5].clk_begin == 1090);  // the first op begins at the prologue's clock
    CHECK(r[5].ns_begin == 5032 + 40);  // warp 1 has no exit: its CTA's other warp's rate
    CHECK(r[7].op == 3);
    CHECK(r[7].lane == 5);  // elected: the header's leader lane
    CHECK(r[8].op == 1);
    CHECK(r[8].iters[0] == 1);
    CHECK(r[9].op == 2);
    CHECK(r[9].ended == 0);
    CHECK(r[9].clk_begin == 1400);
    const std::vector<CtaSpan> spans = cta_spans(r, 1);
    REQUIRE(spans.size() == 1);
    CHECK(spans[0].entry_ns == 0);
    CHECK(spans[0].exit_ns == 1000);
    const std::vector<TraceEvent> ev = decode_trace(r);
    CHECK(ev.size() == 2 * 6 + 1);  // entry and exit records give no events; the hung sync one
}

TEST_CASE("a trace buffer past 1 GiB is refused before the launch", "[device][trace]") {
    Scenario s = load_scenario_text(R"(
scenario: long
launch: {grid: [132], block: 1024}
program:
  - op: loop
    var: i
    count: 2
    body:
      - {op: sync}
)", "long.yaml");
    // The loader's op limit keeps a scenario under 256 MiB of words; an IR built past it (as
    // the benchmark scales its loops) is refused: 132 x 32 warps x 100000 words x 4 bytes.
    s.program[0].loop_count = Expr::constant(100000);
    CHECK_THROWS_WITH(trace_buffer_layout(s, plan_trace(s, TraceLevel::all)), Catch::Contains("--trace waits"));
    CHECK(trace_buffer_layout(s, plan_trace(s, TraceLevel::none)).capacity == 0);
}

TEST_CASE("32-bit clock words widen across the 2^32 wrap", "[device][trace]") {
    const Scenario s = load_scenario_text(R"(
scenario: wrap
launch: {grid: [1], block: 32}
program:
  - {op: sync}
  - {op: sync}
)", "wrap.yaml");
    const TracePlan plan = plan_trace(s, TraceLevel::all);
    FakeBuffer b(trace_buffer_layout(s, plan));
    const uint64_t start = (uint64_t{7} << 32) - 100;  // 100 cycles before the low word wraps
    b.set_header(0, WarpTraceHeader{start - 50, 0, start, start + 400, 200, 2, 0, ~0u, 0, 0});
    b.word(0, 0) = static_cast<uint32_t>(start + 150);  // past the wrap
    b.word(0, 1) = static_cast<uint32_t>(start + 300);
    const std::vector<TraceRecord> r = decode_warp_regions(s, plan, b.layout, b.words, 1000);
    REQUIRE(r.size() == 4);
    CHECK(r[1].clk_begin == start);
    CHECK(r[1].clk_end == start + 150);
    CHECK(r[2].clk_begin == start + 150);
    CHECK(r[2].clk_end == start + 300);
}

TEST_CASE("a header claiming more words than its region holds is refused", "[device][trace]") {
    const Scenario s = load_scenario_text(R"(
scenario: small
launch: {grid: [1], block: 32}
program:
  - {op: sync}
)", "small.yaml");
    const TracePlan plan = plan_trace(s, TraceLevel::all);
    FakeBuffer b(trace_buffer_layout(s, plan));
    b.set_header(0, WarpTraceHeader{1000, 5000, 1100, 3000, 6000, 7, 0, ~0u, 0, 0});
    CHECK_THROWS_WITH(decode_warp_regions(s, plan, b.layout, b.words, 1000), Catch::Contains("claims 7 words"));
}

namespace {
// An H100 SXM / H200 as cuDeviceGetAttribute reports it.
SmLimits hopper() { return {132, 233472, 1024, 232448, 2048, 32}; }
Scenario tma_stream(int ctas, int steady_tiles) {
    Scenario s = load_scenario_file(test::source_dir() + "/scenarios/catalog/bench/tma_stream.yaml");
    s.launch.grid = {ctas};
    for (Op& op : s.program)
        if (op.kind == OpKind::loop && op.var == "t") op.loop_count = Expr::constant(steady_tiles);
    return s;
}
}  // namespace

TEST_CASE("the words stay in shared memory when every warp's fit without losing CTAs per SM", "[device][trace]") {
    // 512 tiles: 4 inits, a sync, 4 prologue runs, 508 x 3 steady words (the elected
    // arrive_expect_tx is folded into its copy), 4 x 2 in the drain.
    const Scenario s = tma_stream(132, 508);
    const TracePlan plan = plan_trace(s, TraceLevel::all);
    const TraceBufferLayout layout = trace_buffer_layout(s, plan);
    CHECK(layout.capacity == 4 + 1 + 4 + 508 * 3 + 8);
    const TraceWordPlace p = place_trace_words(s, layout, hopper());
    CHECK(p.in_shared);
    // Four 16 KiB stages and four 8-byte barriers, then 4 warps' words, then the alignment slack.
    CHECK(p.ring_offset == 65568);
    CHECK(p.untraced_smem_bytes == 65568 + 1024);
    CHECK(p.smem_bytes == 65568 + 4 * 1544 * 4 + 1024);  // 1541 words, padded to 1544
    // No room under a tighter opt-in limit: the words go to global memory.
    SmLimits tight = hopper();
    tight.max_smem_optin = p.smem_bytes - 1;
    const TraceWordPlace g = place_trace_words(s, layout, tight);
    CHECK_FALSE(g.in_shared);
    CHECK(g.smem_bytes == g.untraced_smem_bytes);
    // Three CTAs per SM: 233472 / 3 - 1024 = 76800 bytes per CTA, 65568 + 1024 before the
    // words leaves room for 10208 bytes, fewer than 4 warps' 1544 words (24704 bytes) need.
    CHECK_FALSE(place_trace_words(tma_stream(3 * 132, 508), layout, hopper()).in_shared);
    // A short loop fits there too.
    const Scenario short_loop = tma_stream(3 * 132, 4);
    const TraceBufferLayout small = trace_buffer_layout(short_loop, plan_trace(short_loop, TraceLevel::all));
    CHECK(place_trace_words(short_loop, small, hopper()).in_shared);
    // Untraced: nothing to place.
    CHECK_FALSE(place_trace_words(s, trace_buffer_layout(s, plan_trace(s, TraceLevel::none)), hopper()).in_shared);
    // A kernel that issues cp.async keeps its words in global memory, however few.
    const Scenario ldgsts = load_scenario_file(test::source_dir() + "/scenarios/catalog/bench/ldgsts_stream.yaml");
    const TraceBufferLayout few = trace_buffer_layout(ldgsts, plan_trace(ldgsts, TraceLevel::all));
    CHECK(few.capacity > 0);
    CHECK_FALSE(place_trace_words(ldgsts, few, hopper()).in_shared);
}
