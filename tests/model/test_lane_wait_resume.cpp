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

// Warp 0's waiter (`WAITER`) blocks on done; warp 1 loads shared memory `loads` times, then
// arrives; right after the wait comes `NEXT`.
Scenario blocked_wake(const std::string& waiter, const std::string& next, int loads = 4) {
    return two_warps(R"(  - {op: mbarrier.init, barrier: done, count: 1, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: sync}
  - {op: mbarrier.wait, barrier: done, parity: 0, by: )" + waiter + R"(, label: wait}
  - )" + next + R"(
  - {op: loop, var: r, count: )" + std::to_string(loads) + R"(, body: [{op: shared.load, buffer: words, index: "tid", by: "warp == 1"}]}
  - {op: mbarrier.arrive, barrier: done, by: "warp == 1 && lane == 0", label: arrive}
)", "  done: {}\n");
}

// Warp 1's arrive (issue), warp 0's wait_begin and wait_end, in cycles, on the H200 config.
struct Wake {
    int64_t arrive = -1, begin = -1, end = -1;
};

Wake wake_of(const Scenario& s) {
    ModelOptions o;
    o.arch = "h200";
    const RunResult r = run_model(s, o);
    REQUIRE(r.outcome == Outcome::ok);
    Wake w;
    for (const TraceEvent& e : r.events) {
        if (e.op == 7 && e.kind == EventKind::issue) w.arrive = e.t;
        if (e.op == 3 && e.warp == 0 && e.kind == EventKind::wait_begin) w.begin = e.t;
        if (e.op == 3 && e.warp == 0 && e.kind == EventKind::wait_end) w.end = e.t;
    }
    REQUIRE(w.arrive >= 0);
    REQUIRE(w.begin >= 0);
    REQUIRE(w.end >= 0);
    return w;
}

int64_t wake_after_arrive(const Scenario& s) {
    const Wake w = wake_of(s);
    return w.end - w.arrive;
}

}  // namespace

TEST_CASE("lane wait: the lane waiting alone resumes late only when its warp-mates wait in a vote", "[model][timing]") {
    const model::TimingParams tp = model::ArchConfig::load_named("h200", TMASIM_ARCH_DIR).timing();
    REQUIRE(tp.mbarrier_lane_wait_resume_cycles > tp.mbarrier_wait_resume_cycles);
    const std::string vote = "{op: shared.load, buffer: words, index: \"tid\", by: \"warp == 0\"}";
    // A warp-uniform branch (by: warp0): no vote.
    const std::string uniform = "{op: shared.store, buffer: words, index: \"tid\", value: 1, by: warp0}";
    // The phase completes as the arrive issues; the waiter runs the resume later. Twenty loads
    // put the arrival past the lone lane's shortest blocked wait (mbarrier_lane_wait_min_cycles).
    const auto lane = static_cast<int64_t>(tp.mbarrier_lane_wait_resume_cycles);
    const auto warp = static_cast<int64_t>(tp.mbarrier_wait_resume_cycles);
    const Wake late = wake_of(blocked_wake("elected", vote, 20));
    REQUIRE(late.arrive - late.begin + lane > static_cast<int64_t>(tp.mbarrier_lane_wait_min_cycles));
    CHECK(late.end - late.arrive == lane);
    CHECK(wake_after_arrive(blocked_wake("elected", uniform)) == warp);
    CHECK(wake_after_arrive(blocked_wake("warp0", vote)) == warp);     // the whole warp waits
}

TEST_CASE("lane wait: a lone lane's blocked wait lasts at least mbarrier_lane_wait_min_cycles", "[model][timing]") {
    const model::TimingParams tp = model::ArchConfig::load_named("h200", TMASIM_ARCH_DIR).timing();
    const std::string vote = "{op: shared.load, buffer: words, index: \"tid\", by: \"warp == 0\"}";
    // No loads: the arrival comes right after the wait began (calibrate/lane_wait_arrival_delay's
    // 0-load rounds), and the lane resumes at the floor, not the arrival's resume.
    const Wake early = wake_of(blocked_wake("elected", vote, 0));
    REQUIRE(early.arrive - early.begin + static_cast<int64_t>(tp.mbarrier_lane_wait_resume_cycles) <
            static_cast<int64_t>(tp.mbarrier_lane_wait_min_cycles));
    CHECK(early.end - early.begin == static_cast<int64_t>(tp.mbarrier_lane_wait_min_cycles));
    // A whole warp has no floor.
    const Wake warp = wake_of(blocked_wake("warp0", vote, 0));
    CHECK(warp.end - warp.arrive == static_cast<int64_t>(tp.mbarrier_wait_resume_cycles));
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
