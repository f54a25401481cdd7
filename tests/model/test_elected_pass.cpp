// A warp the elected lane's guard leaves out still runs a guarded tma.load's code (the
// generated kernel predicates the elected lane's instructions, it does not branch around
// them): the model charges it elected_tma_load_pass_cycles per tma.load it passes and
// elected_tma_map_first_pass_cycles more for its first of a map, in the traced and the
// untraced kernel alike, and nothing for the other elected ops.
#include <catch2/catch.hpp>

#include <string>

#include "model/core/arch_config.h"
#include "model/run/run_model.h"
#include "scenarios/loader.h"

using namespace tmasim;

namespace {

// Warp 0's elected lane arrives with expect_tx and issues `loads` (a tma.load or a bulk.load,
// or two tma.loads); warp 1 passes them on its way from the sync to the wait.
std::string scenario(const std::string& loads) {
    return R"(
scenario: elected_pass
summary: the second warp passes the elected lane's loads
source: tests/model
arch: sm_90
launch: {grid: [1], block: 64}
global:
  A: {type: i32, shape: [64, 64], init: iota}
tensormaps:
  mapA: {tensor: A, box: [16, 64], swizzle: none, oob_fill: zero}
shared:
  tile: {type: i32, shape: [16, 64], align: 128, array: 2}
barriers:
  bar: {}
program:
  - {op: mbarrier.init, barrier: bar, count: 1, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: sync}
)" + loads + R"(
  - {op: mbarrier.wait, barrier: bar, parity: 0}
expect:
  outcome: ok
)";
}

const char* kOneTensorLoad = R"(  - {op: mbarrier.arrive_expect_tx, barrier: bar, bytes: 4096, by: elected}
  - {op: tma.load, map: mapA, coords: [0, 0], dst: "tile[0]", barrier: bar, by: elected})";
const char* kTwoTensorLoads = R"(  - {op: mbarrier.arrive_expect_tx, barrier: bar, bytes: 8192, by: elected}
  - {op: tma.load, map: mapA, coords: [0, 0], dst: "tile[0]", barrier: bar, by: elected}
  - {op: tma.load, map: mapA, coords: [0, 16], dst: "tile[1]", barrier: bar, by: elected})";
const char* kBulkLoad = R"(  - {op: mbarrier.arrive_expect_tx, barrier: bar, bytes: 4096, by: elected}
  - {op: bulk.load, global: A, offset: 0, bytes: 4096, dst: "tile[0]", barrier: bar, by: elected})";

// Warp `warp`'s cycles from the end of the sync (op 2) to the begin of the wait (the last op).
int64_t gap_to_wait(const RunResult& r, int warp, int wait_op) {
    int64_t sync_end = -1, wait_begin = -1;
    for (const TraceEvent& e : r.events) {
        if (e.cta != 0 || e.warp != warp || e.lane != 0) continue;
        if (e.op == 2 && e.kind == EventKind::wait_end) sync_end = e.t;
        if (e.op == wait_op && e.kind == EventKind::wait_begin) wait_begin = e.t;
    }
    REQUIRE(sync_end >= 0);
    REQUIRE(wait_begin >= 0);
    return wait_begin - sync_end;
}

}  // namespace

TEST_CASE("elected pass: a warp passing the elected lane's tma.load pays for its guarded code", "[model][elected]") {
    model::ModelOptions o;
    o.arch = "h100-sxm";  // whole cycles: the sums below are exact
    const model::TimingParams tp = model::ArchConfig::load_named(o.arch, o.arch_dir).timing();
    REQUIRE(tp.elected_tma_load_pass_cycles > 0);
    REQUIRE(tp.elected_tma_map_first_pass_cycles > 0);
    for (TraceLevel level : {TraceLevel::none, TraceLevel::all}) {
        INFO("trace level " << (level == TraceLevel::none ? "none" : "all"));
        o.trace = level;
        const RunResult one = run_model(load_scenario_text(scenario(kOneTensorLoad), "one.yaml"), o);
        const RunResult two = run_model(load_scenario_text(scenario(kTwoTensorLoads), "two.yaml"), o);
        const RunResult bulk = run_model(load_scenario_text(scenario(kBulkLoad), "bulk.yaml"), o);
        REQUIRE(one.outcome == Outcome::ok);
        REQUIRE(two.outcome == Outcome::ok);
        REQUIRE(bulk.outcome == Outcome::ok);
        const auto pass = static_cast<int64_t>(tp.elected_tma_load_pass_cycles);
        const auto first = static_cast<int64_t>(tp.elected_tma_map_first_pass_cycles);
        // Warp 1 passes a tensor load or a bulk load: only the first has a tensor map to wait
        // for, the first time (the traced runs' clock reads are alike: two ops each).
        CHECK(gap_to_wait(one, 1, 5) - gap_to_wait(bulk, 1, 5) == pass + first);
        // A second load of the same map waits without the first pass's part (untraced: the
        // traced run's third op adds its clock read).
        if (level == TraceLevel::none) CHECK(gap_to_wait(two, 1, 6) - gap_to_wait(one, 1, 5) == pass);
        // Warp 0, whose lane issues them, pays the load's own issue instead.
        CHECK(gap_to_wait(one, 0, 5) != gap_to_wait(one, 1, 5));
    }
}
