// CTAs simulated one after another (model/run/cta_schedule.h): which programs qualify, that
// the result is the one of the CTAs simulated together, and that a run which finds its CTAs
// did reach one another (shared L2 lines, a hazard, a hang) is simulated together instead.
#include <catch2/catch.hpp>

#include <string>

#include "model/run/cta_schedule.h"
#include "model/run/run_model.h"
#include "model/state/global_memory.h"
#include "scenarios/loader.h"

using namespace tmasim;
using tmasim::model::why_ctas_run_together;

namespace {

// The bench TMA stream on `grid` CTAs of 8 tiles; `coords` picks each CTA's rows.
std::string stream(int grid, const std::string& coords = "cta*512 + t*64", const std::string& extra_op = "",
                   const std::string& launch_extra = "") {
    return "scenario: cta_schedule_stream\narch: sm_90\nlaunch: {grid: [" + std::to_string(grid) + "]" + launch_extra +
           ", block: 128}\n"
           "global:\n  src: {type: f32, shape: [" + std::to_string(grid * 512) + ", 64], init: iota}\n"
           "tensormaps:\n  tile_map: {tensor: src, box: [64, 64]}\n"
           "shared:\n  stage: {type: f32, shape: [64, 64], align: 128, array: 2}\n"
           "barriers:\n  full: {array: 2}\n"
           "program:\n"
           "  - op: loop\n    var: s\n    count: 2\n    body:\n"
           "      - {op: mbarrier.init, barrier: \"full[s]\", count: 1, by: thread0}\n"
           "  - {op: sync}\n" + extra_op +
           "  - op: loop\n    var: t\n    count: 8\n    body:\n"
           "      - {op: mbarrier.arrive_expect_tx, barrier: \"full[t%2]\", bytes: 16384, by: elected}\n"
           "      - {op: tma.load, map: tile_map, coords: [\"" + coords + "\", 0], dst: \"stage[t%2]\", "
           "barrier: \"full[t%2]\", by: elected}\n"
           "      - {op: mbarrier.wait, barrier: \"full[t%2]\", parity: \"(t/2)%2\"}\n"
           "      - {op: sync}\n";
}

RunResult run(const std::string& text, bool together) {
    ModelOptions o;
    o.ctas_together = together;
    return run_model(load_scenario_text(text, "stream.yaml"), o);
}

std::string extra(const RunResult& r, const std::string& key) {
    auto it = r.provenance.extra.find(key);
    return it == r.provenance.extra.end() ? "" : it->second;
}

// Everything but the provenance: outcome, diagnostics, events, memory.
void require_same_run(const RunResult& a, const RunResult& b) {
    REQUIRE(a.outcome == b.outcome);
    REQUIRE(a.diagnostics.size() == b.diagnostics.size());
    for (size_t i = 0; i < a.diagnostics.size(); ++i) CHECK(a.diagnostics[i].message == b.diagnostics[i].message);
    REQUIRE(a.events.size() == b.events.size());
    size_t differing = 0;
    for (size_t i = 0; i < a.events.size(); ++i) {
        const TraceEvent& x = a.events[i];
        const TraceEvent& y = b.events[i];
        if (x.key() != y.key() || x.t != y.t || x.what != y.what || x.detail != y.detail) ++differing;
    }
    CHECK(differing == 0);
    REQUIRE(a.memory.size() == b.memory.size());
    for (size_t i = 0; i < a.memory.size(); ++i) CHECK(a.memory[i].bytes == b.memory[i].bytes);
    CHECK(extra(a, "kernel_span_cycles") == extra(b, "kernel_span_cycles"));
}

}  // namespace

TEST_CASE("cta schedule: which programs may run their CTAs one after another", "[model][cta_schedule]") {
    CHECK_FALSE(why_ctas_run_together(load_scenario_text(stream(4), "s.yaml")));
    CHECK(*why_ctas_run_together(load_scenario_text(stream(1), "s.yaml")) == "one CTA");
    CHECK(*why_ctas_run_together(load_scenario_text(stream(4, "cta*512 + t*64", "", ", cluster: [2]"), "s.yaml")) ==
          "clusters of more than one CTA");
    // A global store reaches other CTAs.
    const std::string store = "  - {op: global.store, global: src, index: tid, value: 1, by: thread0}\n";
    CHECK(why_ctas_run_together(load_scenario_text(stream(4, "cta*512 + t*64", store), "s.yaml"))->find("global.store") !=
          std::string::npos);
    // A loop count that names the CTA: not the same work in every CTA.
    const std::string per_cta = "  - op: loop\n    var: u\n    count: cta\n    body:\n      - {op: sync}\n";
    CHECK(why_ctas_run_together(load_scenario_text(stream(4, "cta*512 + t*64", per_cta), "s.yaml"))->find("names cta") !=
          std::string::npos);
    // The coordinates may name it: which rows a CTA reads does not change what it does.
    CHECK_FALSE(why_ctas_run_together(load_scenario_text(stream(4, "cta*512 + t*64 + cta%2"), "s.yaml")));
}

TEST_CASE("cta schedule: CTAs run apart give the run of the CTAs together", "[model][cta_schedule]") {
    const RunResult apart = run(stream(6), false);
    const RunResult together = run(stream(6), true);
    CHECK(apart.outcome == Outcome::ok);
    CHECK(extra(apart, "ctas_simulated") == "apart");
    CHECK(extra(together, "ctas_simulated") == "together");
    CHECK(extra(apart, "hbm_shares") == "even");
    require_same_run(apart, together);
    // One CTA, or CTAs that may not run apart, keep the chip's channel first come first served.
    CHECK(extra(run(stream(1), false), "hbm_shares").empty());
}

TEST_CASE("cta schedule: CTAs that read the same L2 lines, or report a hazard or a hang, run together",
          "[model][cta_schedule]") {
    // Every CTA loads the same rows: who touched a line first depends on time across CTAs.
    const RunResult shared = run(stream(3, "t*64"), false);
    CHECK(extra(shared, "ctas_simulated") == "together");
    require_same_run(shared, run(stream(3, "t*64"), true));
    // A read of the stage before its wait: a hazard in every CTA, reported in time order.
    const std::string early_read = "  - {op: shared.load, buffer: \"stage[0]\", index: tid}\n";
    const std::string racy = stream(2, "cta*512 + t*64", "  - {op: mbarrier.arrive_expect_tx, barrier: \"full[0]\", bytes: 16384, by: elected}\n"
                                                        "  - {op: tma.load, map: tile_map, coords: [\"cta*512\", 0], dst: \"stage[0]\", barrier: \"full[0]\", by: elected}\n" +
                                                            early_read +
                                                        "  - {op: mbarrier.wait, barrier: \"full[0]\", parity: 0}\n"
                                                        "  - {op: sync}\n");
    const RunResult hazard = run(racy, false);
    CHECK(hazard.outcome == Outcome::hazard);
    CHECK(extra(hazard, "ctas_simulated") == "together");
    require_same_run(hazard, run(racy, true));
    // A wait, before any load, on a phase no load completes yet: every CTA hangs.
    const std::string never = "  - {op: mbarrier.wait, barrier: \"full[1]\", parity: 0, label: never}\n";
    const RunResult hang = run(stream(2, "cta*512 + t*64", never), false);
    CHECK(hang.outcome == Outcome::hang);
    CHECK(extra(hang, "ctas_simulated") == "together");
    require_same_run(hang, run(stream(2, "cta*512 + t*64", never), true));
}

TEST_CASE("cta schedule: global memory tells lines two CTAs touched from lines each touched alone",
          "[model][cta_schedule]") {
    const Scenario s = load_scenario_text(stream(4), "s.yaml");
    model::GlobalMemory g(s);
    g.note_touching_ctas();
    constexpr int64_t L = model::GlobalMemory::kLineBytes;
    g.touch("src", 0, 10 * L - 1, 0);        // lines 0-9 by CTA 0
    g.touch("src", 10 * L, 20 * L - 1, 0);   // 10-19: its run grows
    g.touch("src", 20 * L, 30 * L - 1, 1);   // 20-29 by CTA 1, next to it
    g.touch("src", 5 * L, 15 * L - 1, 0);    // CTA 0 again, its own lines
    g.touch("src", 25 * L, 25 * L + 3, 1);
    CHECK_FALSE(g.ctas_shared_lines());
    g.touch("src", 29 * L + 100, 31 * L, 2);  // line 29 is CTA 1's
    CHECK(g.ctas_shared_lines());
    model::GlobalMemory h(s);
    h.note_touching_ctas();
    h.touch("src", 100 * L, 200 * L - 1, 3);
    h.touch("src", 0, 99 * L, 2);  // ends in line 99: next to CTA 3's run, not in it
    CHECK_FALSE(h.ctas_shared_lines());
    h.touch("src", 150 * L, 150 * L, 2);
    CHECK(h.ctas_shared_lines());
    // A CTA's later touch that covers its earlier run and more: the runs merge, so another
    // CTA's line inside the wider one is still found.
    model::GlobalMemory m(s);
    m.note_touching_ctas();
    m.touch("src", 10 * L, 20 * L, 0);
    m.touch("src", 5 * L, 30 * L, 0);
    CHECK_FALSE(m.ctas_shared_lines());
    m.touch("src", 25 * L, 26 * L, 1);
    CHECK(m.ctas_shared_lines());
}
