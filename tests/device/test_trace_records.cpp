// Kernel trace records -> trace events: per-CTA t0, kernel-wide ns base, pairs of events,
// timed-out waits, sort order; and the record count the buffer is sized for.
#include <catch2/catch.hpp>

#include "device/trace_records.h"
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

TEST_CASE("each warp's trace region holds the entry record and one slot per op instance", "[device][trace]") {
    const Scenario flat = load_scenario_file(test::source_dir() +
                                             "/scenarios/catalog/guide/tma_2d_load_modify_store.yaml");
    CHECK(records_per_warp(flat) == 4 + 13);
    CHECK(records_per_warp(flat, TraceLevel::none) == 4);
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
    CHECK(records_per_warp(looped) == 4 + 1 + 4 + 6);
    // Only the syncs wait.
    CHECK(records_per_warp(looped, TraceLevel::waits) == 4 + 1 + 6);
}

namespace {
DeviceRecord dev(uint64_t clk, uint32_t dur, int kind, int ended, int lane, int op) {
    return {clk, static_cast<uint32_t>(clk + dur), static_cast<uint32_t>(kind) | (static_cast<uint32_t>(ended) << 3) |
                          (static_cast<uint32_t>(lane) << 4) | (static_cast<uint32_t>(op) << 9)};
}
}  // namespace

TEST_CASE("16-byte device records widen with loop indices from instance order and ns from entry and exit",
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
)", "widen.yaml");
    const unsigned capacity = 8;
    const DeviceRecord empty{~0ull, ~0u, ~0u};
    std::vector<DeviceRecord> regions(2 * capacity, empty);
    // Warp 0: entry at clock 1000 / 5000 ns, two syncs, exit at clock 3000 / 6000 ns (0.5 ns per clock).
    regions[0] = dev(1000, 0, kRecordEntry, 1, 0, 0);
    regions[1] = dev(5000, 0, kRecordTimer, 1, 0, 0);
    regions[2] = dev(1200, 100, kRecordWait, 1, 0, 2);
    regions[3] = dev(2200, 50, kRecordWait, 1, 0, 2);
    regions[4] = dev(3000, 0, kRecordExit, 1, 0, 0);
    regions[5] = dev(6000, 0, kRecordTimer, 1, 0, 0);
    // Warp 1: entry, compute and sync of iteration 0, then a sync that never ended; no exit.
    regions[capacity + 0] = dev(1010, 0, kRecordEntry, 1, 0, 0);
    regions[capacity + 1] = dev(5032, 0, kRecordTimer, 1, 0, 0);
    regions[capacity + 2] = dev(1100, 40, kRecordOp, 1, 0, 1);
    regions[capacity + 3] = dev(1150, 100, kRecordWait, 1, 0, 2);
    regions[capacity + 4] = dev(1300, 20, kRecordOp, 1, 0, 1);
    regions[capacity + 5] = dev(1400, 0, kRecordWait, 0, 0, 2);
    const std::vector<TraceRecord> r = widen_records(s, regions, capacity, 1000);
    REQUIRE(r.size() == 4 + 5);
    CHECK(r[1].op == 2);
    CHECK(r[1].niters == 1);
    CHECK(r[1].iters[0] == 0);
    CHECK(r[2].iters[0] == 1);
    CHECK(r[2].clk_end == 2250);
    CHECK(r[2].ns_begin == 5600);  // 5000 + 1200 * 0.5
    CHECK(r[2].ns_end == 5625);
    CHECK(r[3].kind == kRecordExit);
    CHECK(r[3].ns_begin == 6000);
    CHECK(r[4].warp == 1);
    CHECK(r[5].op == 1);
    CHECK(r[5].clk_begin == 1100);
    CHECK(r[5].ns_begin == 5032 + 45);  // warp 1 has no exit: its CTA's other warp's rate
    CHECK(r[7].iters[0] == 1);           // the compute's second instance
    CHECK(r[8].ended == 0);
    CHECK(r[8].iters[0] == 1);
    const std::vector<CtaSpan> spans = cta_spans(r, 1);
    REQUIRE(spans.size() == 1);
    CHECK(spans[0].entry_ns == 0);
    CHECK(spans[0].exit_ns == 1000);
    const std::vector<TraceEvent> ev = decode_trace(r);
    CHECK(ev.size() == 2 * 5 + 1);  // entry and exit records give no events; the hung sync one
}
