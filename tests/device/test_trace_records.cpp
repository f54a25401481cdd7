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
    CHECK(records_per_warp(flat) == 1 + 13);
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
    CHECK(records_per_warp(looped) == 1 + 1 + 4 + 6);
}
