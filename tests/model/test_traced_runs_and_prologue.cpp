// Two parts of the traced kernel the model predicts (tmasim run --trace all): ops that one
// thread runs back to back read the clock inside their branch and move their words after it
// (scenarios/trace_level.h TimedOps::in_branch; arch config trace_in_branch_probe_cycles), and
// the prologue every warp runs before its first op is issued in turn by the warps that share an
// SM scheduler (trace_prologue_warp_cycles). Neither touches the untraced prediction.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "model/core/arch_config.h"
#include "model/run/run_model.h"
#include "scenarios/loader.h"

using namespace tmasim;

namespace {

const model::TimingParams& h200_timing() {
    static const model::ArchConfig cfg = model::ArchConfig::load_named("h200", ModelOptions().arch_dir);
    return cfg.timing();
}

RunResult run_traced_at(const Scenario& s, TraceLevel level) {
    ModelOptions o;
    o.arch = "h200";
    o.trace = level;
    return run_model(s, o);
}

int64_t event_t(const RunResult& r, int op, EventKind kind, int warp = 0) {
    for (const TraceEvent& e : r.events)
        if (e.op == op && e.kind == kind && e.warp == warp) return e.t;
    FAIL("no event of op " << op << " in warp " << warp);
    return -1;
}

// Ops 0-2: thread0's three inits and its fence, one branch; op 4 the sync after them.
const char* kThreadInitRun = R"(
scenario: init_run
launch: {grid: [1], block: 32}
barriers:
  a: {}
  b: {}
  c: {}
program:
  - {op: mbarrier.init, barrier: a, count: 1, by: thread0}
  - {op: mbarrier.init, barrier: b, count: 1, by: thread0}
  - {op: mbarrier.init, barrier: c, count: 1, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: sync}
)";

Scenario prologue_scenario(int block) {
    return load_scenario_text("scenario: prologue\nlaunch: {grid: [1], block: " + std::to_string(block) +
                                  "}\nshared:\n  s: {type: i32, shape: [1024]}\nprogram:\n"
                                  "  - {op: shared.store, buffer: s, index: \"tid\", value: \"tid\"}\n",
                              "prologue.yaml");
}

}  // namespace

TEST_CASE("a one-thread run's ops pay a read inside the branch, the run's words move after it",
          "[model][trace_level]") {
    const model::TimingParams& t = h200_timing();
    REQUIRE(t.trace_in_branch_probe_cycles > 0);
    REQUIRE(t.trace_in_branch_probe_cycles < t.trace_probe_cycles);
    const Scenario s = load_scenario_text(kThreadInitRun, "init_run.yaml");
    const RunResult none = run_traced_at(s, TraceLevel::none);
    const RunResult all = run_traced_at(s, TraceLevel::all);
    REQUIRE(none.outcome == Outcome::ok);
    REQUIRE(all.outcome == Outcome::ok);
    const auto lasted = [](const RunResult& r, int op) {
        return event_t(r, op, EventKind::complete) - event_t(r, op, EventKind::issue);
    };
    // Each op of the run lasts its own time and the in-branch read, not the whole probe.
    for (int op = 0; op < 4; ++op)
        CHECK(lasted(all, op) - lasted(none, op) == std::llround(t.trace_in_branch_probe_cycles));
    // The next op ends the first where the last began: one read per boundary.
    for (int op = 0; op < 3; ++op) CHECK(event_t(all, op + 1, EventKind::issue) == event_t(all, op, EventKind::complete));
    // After the branch the warp moves the run's four words, each at the probe's cost.
    CHECK(event_t(all, 4, EventKind::wait_begin) - event_t(all, 3, EventKind::complete) == std::llround(4 * t.trace_probe_cycles));
}

TEST_CASE("the traced prologue grows with the warps that share a scheduler, the untraced one does not",
          "[model][trace_level]") {
    const model::TimingParams& t = h200_timing();
    REQUIRE(t.trace_prologue_warp_cycles > 0);
    const auto first_op = [](int block, TraceLevel level) {
        const RunResult r = run_traced_at(prologue_scenario(block), level);
        REQUIRE(r.outcome == Outcome::ok);
        return event_t(r, 0, EventKind::issue);
    };
    // 4 warps: one per scheduler; 8: two; 16: four.
    const int64_t one = first_op(128, TraceLevel::all);
    CHECK(first_op(32, TraceLevel::all) == one);
    CHECK(first_op(256, TraceLevel::all) - one == std::llround(t.trace_prologue_warp_cycles));
    CHECK(first_op(512, TraceLevel::all) - one == std::llround(3 * t.trace_prologue_warp_cycles));
    CHECK(first_op(512, TraceLevel::none) == first_op(128, TraceLevel::none));
}
