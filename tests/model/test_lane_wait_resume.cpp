// A lane blocked alone in mbarrier.wait resumes late when its warp-mates wait for it in the
// next op's vote (model/state/next_warp_vote.h, calibrate/mbarrier_blocked_wake), and an op
// by a predicate pays for the run-time divisions of its index (predicate_division_cycles).
#include <catch2/catch.hpp>

#include <string>

#include "model/core/arch_config.h"
#include "model/run/run_model.h"
#include "model/state/next_warp_vote.h"
#include "scenarios/loader.h"

using namespace tmasim;

namespace {

// A one-CTA scenario of two warps with a shared i32[64] `words`, the barriers of `barriers`
// (a YAML mapping body, or empty) and the ops of `program` (YAML list items).
Scenario two_warps(const std::string& program, const std::string& barriers = "", const std::string& outcome = "ok") {
    return load_scenario_text(R"(
scenario: two_warps
summary: A test program of two warps.
source: tests/model
arch: sm_90
launch: {grid: [1], block: 64}
shared:
  words: {type: i32, shape: [64]}
)" + (barriers.empty() ? "" : "barriers:\n" + barriers) + "program:\n" + program + "expect:\n  outcome: " + outcome + "\n",
                              "two_warps.yaml");
}

// Warp 0's waiter (`WAITER`) blocks on done; warp 1 loads shared memory four times, then
// arrives; right after the wait comes `NEXT`.
Scenario blocked_wake(const std::string& waiter, const std::string& next) {
    return two_warps(R"(  - {op: mbarrier.init, barrier: done, count: 1, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: sync}
  - {op: mbarrier.wait, barrier: done, parity: 0, by: )" + waiter + R"(, label: wait}
  - )" + next + R"(
  - {op: loop, var: r, count: 4, body: [{op: shared.load, buffer: words, index: "tid", by: "warp == 1"}]}
  - {op: mbarrier.arrive, barrier: done, by: "warp == 1 && lane == 0", label: arrive}
)", "  done: {}\n");
}

// Cycles from warp 1's arrive (issue) to warp 0's wait_end, on the H200 config.
int64_t wake_after_arrive(const Scenario& s) {
    ModelOptions o;
    o.arch = "h200";
    const RunResult r = run_model(s, o);
    REQUIRE(r.outcome == Outcome::ok);
    int64_t arrive = -1, end = -1;
    for (const TraceEvent& e : r.events) {
        if (e.op == 7 && e.kind == EventKind::issue) arrive = e.t;
        if (e.op == 3 && e.kind == EventKind::wait_end && e.warp == 0) end = e.t;
    }
    REQUIRE(arrive >= 0);
    REQUIRE(end >= 0);
    return end - arrive;
}

}  // namespace

TEST_CASE("lane wait: the lane waiting alone resumes late only when its warp-mates wait in a vote", "[model][timing]") {
    const model::TimingParams tp = model::ArchConfig::load_named("h200", TMASIM_ARCH_DIR).timing();
    REQUIRE(tp.mbarrier_lane_wait_resume_cycles > tp.mbarrier_wait_resume_cycles);
    const std::string vote = "{op: shared.load, buffer: words, index: \"tid\", by: \"warp == 0\"}";
    // A warp-uniform branch (by: warp0): no vote.
    const std::string uniform = "{op: shared.store, buffer: words, index: \"tid\", value: 1, by: warp0}";
    // The phase completes as the arrive issues; the waiter runs the resume later.
    const auto lane = static_cast<int64_t>(tp.mbarrier_lane_wait_resume_cycles);
    const auto warp = static_cast<int64_t>(tp.mbarrier_wait_resume_cycles);
    CHECK(wake_after_arrive(blocked_wake("elected", vote)) == lane);
    CHECK(wake_after_arrive(blocked_wake("elected", uniform)) == warp);
    CHECK(wake_after_arrive(blocked_wake("warp0", vote)) == warp);     // the whole warp waits
}

TEST_CASE("lane wait: the next op the other lanes share is found past one-thread ops and loops", "[model][timing]") {
    const Scenario s = two_warps(R"(  - {op: mbarrier.init, barrier: "b[0]", count: 1, by: thread0}
  - op: loop
    var: k
    count: 2
    body:
      - {op: mbarrier.wait, barrier: "b[0]", parity: 0, by: elected}
      - {op: mbarrier.arrive, barrier: "b[1]", by: elected}
      - {op: shared.load, buffer: words, index: "tid", by: "warp >= 1"}
  - {op: mbarrier.wait, barrier: "b[1]", parity: 0, by: thread0}
  - {op: sync}
)", "  b: {array: 2}\n", "hang");
    CHECK(model::next_shared_op_is_vote(s.program, 2));       // past the elected arrive, a vote
    CHECK_FALSE(model::next_shared_op_is_vote(s.program, 5));  // a CTA sync
    CHECK_FALSE(model::next_shared_op_is_vote(s.program, 99)); // no such op
}

TEST_CASE("predicate: each run-time division of the index costs predicate_division_cycles", "[model][timing]") {
    const model::TimingParams tp = model::ArchConfig::load_named("h200", TMASIM_ARCH_DIR).timing();
    const auto load_span = [](const std::string& index) {
        const Scenario s = two_warps(R"(  - {op: shared.load, buffer: words, index: ")" + index + R"(", by: "warp == 1"}
)");
        ModelOptions o;
        o.arch = "h200";
        int64_t end = -1;
        for (const TraceEvent& e : run_model(s, o).events)
            if (e.kind == EventKind::complete) end = e.t;
        return end;
    };
    // "tid % 64", "tid % 32" and "tid / 64" divide a thread's coordinate at run time; "(4 / 2) + tid" folds.
    CHECK(load_span("tid % 64") - load_span("tid") == static_cast<int64_t>(tp.predicate_division_cycles));
    CHECK(load_span("(tid % 32) + tid / 64") - load_span("tid") == static_cast<int64_t>(2 * tp.predicate_division_cycles));
    CHECK(load_span("(4 / 2) + tid - 2") == load_span("tid"));
}
