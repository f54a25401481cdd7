// Named barriers (bar.sync / bar.arrive id, count; semantics.md F33, C22): the loader's
// limits, the happens-before they give only to the warps that take part, a count that
// never arrives, and two counts in one phase.
#include <catch2/catch.hpp>

#include <string>

#include "catalog_support.h"
#include "model/core/arch_config.h"
#include "model/run/run_model.h"
#include "scenarios/loader.h"

using namespace tmasim;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_named_barriers {

namespace {

std::string program(const std::string& ops, int block = 96) {
    return "scenario: named\narch: sm_90\nlaunch: {grid: [1], block: " + std::to_string(block) +
           "}\nglobal:\n  G: {type: i32, shape: [128], init: iota}\nshared:\n  t: {type: i32, shape: [32]}\n"
           "program:\n" + ops;
}

RunResult run_text(const std::string& text) { return run_model(load_scenario_text(text, "named.yaml")); }

std::string all_diagnostics(const RunResult& r) {
    std::string out;
    for (const auto& d : r.diagnostics) out += "\n  [" + d.rule + "] " + d.message;
    return out;
}

}  // namespace

TEST_CASE("named barriers: id 1..15 and a count of whole warps within the block", "[model][named_barrier]") {
    CHECK_THROWS_WITH(load_scenario_text(program("  - {op: bar.sync, id: 0, count: 64}\n"), "named.yaml"),
                      Catch::Contains("id") && Catch::Contains("allowed: 1..15"));
    CHECK_THROWS_WITH(load_scenario_text(program("  - {op: bar.sync, id: 16, count: 64}\n"), "named.yaml"),
                      Catch::Contains("allowed: 1..15"));
    CHECK_THROWS_WITH(load_scenario_text(program("  - {op: bar.sync, id: 1, count: 48}\n"), "named.yaml"),
                      Catch::Contains("multiple of 32"));
    CHECK_THROWS_WITH(load_scenario_text(program("  - {op: bar.sync, id: 1, count: 128}\n"), "named.yaml"),
                      Catch::Contains("allowed: 32..96"));
    CHECK_THROWS_WITH(load_scenario_text(program("  - {op: bar.arrive, id: 1}\n"), "named.yaml"),
                      Catch::Contains("count"));
}

TEST_CASE("named barriers: only the warps that take part are ordered", "[model][named_barrier][race]") {
    // Warp 0 stores and arrives on barrier 1 with count 64; warp 1 syncs on it and reads (ordered);
    // warp 2 reads without taking part (a race with warp 0's stores).
    const std::string ops =
        "  - {op: shared.store, buffer: t, index: lane, value: lane, by: warp0, label: put}\n"
        "  - {op: bar.arrive, id: 1, count: 64, by: warp0}\n"
        "  - {op: bar.sync, id: 1, count: 64, by: warp1}\n"
        "  - {op: shared.load, buffer: t, index: lane, by: warp1, label: member}\n"
        "  - {op: global.load, global: G, index: lane, by: warp2}\n"
        "  - {op: shared.load, buffer: t, index: lane, by: warp2, label: outsider}\n";
    const Scenario s = load_scenario_text(program(ops), "named.yaml");
    const RunResult r = run_model(s);
    INFO(all_diagnostics(r));
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics[0].rule == "race.shared_raw");
    CHECK(r.diagnostics[0].op == test::op_id(s, "outsider"));
    CHECK(r.diagnostics[0].detail.at("other_op") == std::to_string(test::op_id(s, "put")));
    CHECK(r.diagnostics[0].detail.at("thread") == "64");
}

TEST_CASE("named barriers: a count that never arrives hangs the bar.sync warps", "[model][named_barrier]") {
    const RunResult r = run_text(program("  - {op: bar.sync, id: 3, count: 96, by: \"warp < 2\", label: short}\n"));
    INFO(all_diagnostics(r));
    CHECK(r.outcome == Outcome::hang);
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics[0].rule == "sync.deadlock");
    CHECK(r.diagnostics[0].detail.at("warps") == "0-1");
    CHECK(r.diagnostics[0].detail.at("named_barrier") == "3");
    CHECK(r.diagnostics[0].detail.at("arrived_threads") == "64");
    CHECK(r.diagnostics[0].detail.at("expected_threads") == "96");
    CHECK(r.diagnostics[0].message.find("named barrier 3: 64 of 96 threads arrived") != std::string::npos);
}

TEST_CASE("named barriers: two counts in one phase are a model fault", "[model][named_barrier]") {
    const RunResult r = run_text(program("  - {op: bar.arrive, id: 1, count: 64, by: warp0}\n"
                                         "  - {op: bar.sync, id: 1, count: 96, by: warp1}\n"));
    INFO(all_diagnostics(r));
    CHECK(r.outcome == Outcome::fault);
    REQUIRE_FALSE(r.diagnostics.empty());
    CHECK(r.diagnostics[0].rule == "model.fault");
}

TEST_CASE("named barriers: a phase completes at the count and the barrier is reused", "[model][named_barrier]") {
    // Two rounds on barrier 5 between warp 0 (producer) and warp 1 (consumer): no race, no hang.
    const std::string ops =
        "  - {op: loop, var: i, count: 2, body: [\n"
        "      {op: shared.store, buffer: t, index: lane, value: \"i + lane\", by: warp0},\n"
        "      {op: bar.arrive, id: 5, count: 64, by: warp0},\n"
        "      {op: bar.sync, id: 5, count: 64, by: warp1},\n"
        "      {op: shared.load, buffer: t, index: lane, by: warp1},\n"
        "      {op: bar.arrive, id: 6, count: 64, by: warp1},\n"
        "      {op: bar.sync, id: 6, count: 64, by: warp0}]}\n";
    const RunResult r = run_text(program(ops, 64));
    INFO(all_diagnostics(r));
    CHECK(r.outcome == Outcome::ok);
    CHECK(r.diagnostics.empty());
}


// bar.arrive does not wait: the arriving warp pays the measured arrive (calibrate/
// named_barrier_arrive: 32 cycles issue to complete on the H200 once the vote is taken out),
// and its issue and complete events bracket it, as the device's do.
TEST_CASE("named barriers: bar.arrive costs the arriving warp bar_arrive_cycles, issue to complete",
          "[model][named_barrier]") {
    const RunResult r = run_text(program("  - {op: bar.arrive, id: 1, count: 64, by: warp0}\n"
                                         "  - {op: bar.sync, id: 1, count: 64, by: warp1}\n", 64));
    REQUIRE(r.outcome == Outcome::ok);
    const double arrive = model::ArchConfig::load_named("h100-sxm", TMASIM_ARCH_DIR).timing().bar_arrive_cycles;
    int64_t issue = -1, complete = -1;
    for (const TraceEvent& e : r.events) {
        if (e.op != 0 || e.warp != 0 || e.lane != 0) continue;
        if (e.kind == EventKind::issue) issue = e.t;
        if (e.kind == EventKind::complete) complete = e.t;
    }
    REQUIRE(issue >= 0);
    REQUIRE(complete >= 0);
    CHECK(arrive > 20);  // the device's 29-40, not one issue slot
    CHECK(complete - issue == static_cast<int64_t>(arrive + 0.5));
}

}  // namespace test_named_barriers
