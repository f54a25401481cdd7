// Which ops a traced kernel times (scenarios/trace_level.h timed_ops): every op at level all,
// except that runs of cp.async issued by every thread are timed once, on their last op.
#include <catch2/catch.hpp>

#include "scenarios/loader.h"
#include "scenarios/trace_level.h"

using namespace tmasim;

namespace {
// Op ids: 0 loop s { 1 loop k { 2 cp.async }, 3 commit }, 4 wait_group, 5 sync,
// 6 cp.async (elected), 7 commit, 8 cp.async (trace: true), 9 commit, 10 cp.async, 11 wait_all.
const char* kPipeline = R"(
scenario: runs
launch: {grid: [1], block: 64}
global:
  src: {type: f32, shape: [4096], init: iota}
shared:
  stage: {type: f32, shape: [512]}
program:
  - op: loop
    var: s
    count: 2
    body:
      - op: loop
        var: k
        count: 2
        body:
          - {op: cp.async, global: src, src_index: "s*256 + k*128 + tid*2", dst: stage, dst_index: "s*256 + k*128 + tid*2", size: 8}
      - {op: cp.async.commit_group}
  - {op: cp.async.wait_group, n: 0}
  - {op: sync}
  - {op: cp.async, global: src, src_index: "1024", dst: stage, dst_index: "0", size: 16, by: elected0}
  - {op: cp.async.commit_group}
  - {op: cp.async, global: src, src_index: "2048 + tid*4", dst: stage, dst_index: "tid*4", size: 16, trace: true}
  - {op: cp.async.commit_group}
  - {op: cp.async, global: src, src_index: "3072 + tid*4", dst: stage, dst_index: "tid*4", size: 16}
  - {op: cp.async.wait_all}
)";
}  // namespace

TEST_CASE("at level all a run of cp.async is timed by its last op, the ops before it are folded", "[scenarios][trace]") {
    const Scenario s = load_scenario_text(kPipeline, "runs.yaml");
    const TimedOps all = timed_ops(s, TraceLevel::all);
    REQUIRE(all.timed.size() == 12);
    // The loop of copies is followed by its commit: the copies are folded, the commit is timed.
    CHECK(all.folded[2]);
    CHECK_FALSE(all.timed[2]);
    CHECK(all.timed[3]);
    CHECK_FALSE(all.folded[3]);
    // Waits and syncs are timed and never folded.
    CHECK(all.timed[4]);
    CHECK(all.timed[5]);
    // One thread's copy is not a run of every thread's: timed on its own, as is its commit.
    CHECK(all.timed[6]);
    CHECK_FALSE(all.folded[6]);
    CHECK(all.timed[7]);
    // `trace: true` keeps an op timed on its own.
    CHECK(all.timed[8]);
    CHECK_FALSE(all.folded[8]);
    // A commit followed by a copy starts a run that the copy ends.
    CHECK(all.folded[9]);
    // A copy followed by a wait ends its run itself: a wait's begin must be its own.
    CHECK(all.timed[10]);
    CHECK_FALSE(all.folded[10]);
    CHECK(all.timed[11]);
}

TEST_CASE("only level all folds: waits and none time what op_traced says", "[scenarios][trace]") {
    const Scenario s = load_scenario_text(kPipeline, "runs.yaml");
    for (TraceLevel level : {TraceLevel::waits, TraceLevel::none}) {
        const TimedOps t = timed_ops(s, level);
        for (const Op* op : {&s.program[0].body[0].body[0], &s.program[1], &s.program[7]}) {
            CHECK_FALSE(t.is_folded(*op));
            CHECK(t.is_timed(*op) == op_traced(*op, level));
        }
    }
}

TEST_CASE("an elected run is timed by its last op, the ops before it are folded", "[scenarios][trace]") {
    // Op ids: 0 init, 1 sync, 2 arrive_expect_tx, 3 bulk.load (elected0), 4 arrive_expect_tx
    // (elected1), 5 shared.store (elected0), 6 arrive_expect_tx (elected0), 7 wait.
    const Scenario s = load_scenario_text(R"(
scenario: elected_runs
launch: {grid: [1], block: 64}
global:
  src: {type: f32, shape: [256], init: iota}
shared:
  box: {type: f32, shape: [256]}
barriers:
  full: {}
program:
  - {op: mbarrier.init, barrier: full, count: 1, by: thread0}
  - {op: sync}
  - {op: mbarrier.arrive_expect_tx, barrier: full, bytes: 1024, by: elected0}
  - {op: bulk.load, global: src, offset: 0, bytes: 1024, dst: box, barrier: full, by: elected0}
  - {op: mbarrier.arrive_expect_tx, barrier: full, bytes: 0, by: elected1}
  - {op: shared.store, buffer: box, index: "0", value: "1", by: elected0}
  - {op: mbarrier.arrive_expect_tx, barrier: full, bytes: 0, by: elected0}
  - {op: mbarrier.wait, barrier: full, parity: 0}
)", "elected_runs.yaml");
    const TimedOps all = timed_ops(s, TraceLevel::all);
    CHECK(all.folded[2]);  // the producer's arrive_expect_tx, folded into its copy
    CHECK(all.timed[3]);
    CHECK_FALSE(all.folded[3]);  // warp 1's elected thread is another thread: no run
    CHECK_FALSE(all.folded[4]);
    CHECK_FALSE(all.folded[5]);  // a generic shared write ends a run (the warp syncs after it)
    CHECK(all.timed[6]);
    CHECK_FALSE(all.folded[6]);  // followed by a wait
    CHECK_FALSE(timed_ops(s, TraceLevel::none).folded[2]);
}

namespace {
// Op ids: 0-2 mbarrier.init by thread0, 3 fence.mbarrier_init by thread0, 4 sync,
// 5 mbarrier.arrive by thread0, 6 mbarrier.wait by thread0, 7 mbarrier.arrive by thread0,
// 8 mbarrier.arrive by thread1, 9 arrive_expect_tx by elected, 10 mbarrier.arrive by thread1.
const char* kThreadRuns = R"(
scenario: thread_runs
launch: {grid: [1], block: 64}
barriers:
  a: {}
  b: {}
  c: {}
program:
  - {op: mbarrier.init, barrier: a, count: 1, by: thread0}
  - {op: mbarrier.init, barrier: b, count: 2, by: thread0}
  - {op: mbarrier.init, barrier: c, count: 1, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: sync}
  - {op: mbarrier.arrive, barrier: a, by: thread0}
  - {op: mbarrier.wait, barrier: a, parity: 0, by: thread0}
  - {op: mbarrier.arrive, barrier: b, by: thread0}
  - {op: mbarrier.arrive, barrier: b, by: thread1}
  - {op: mbarrier.arrive_expect_tx, barrier: c, bytes: 0, by: elected}
  - {op: mbarrier.arrive, barrier: c, by: thread1}
)";
}  // namespace

TEST_CASE("ops one thread runs back to back are timed by reads inside their branch", "[scenarios][trace]") {
    const Scenario s = load_scenario_text(kThreadRuns, "thread_runs.yaml");
    const TimedOps all = timed_ops(s, TraceLevel::all);
    REQUIRE(all.in_branch.size() == 11);
    // thread0's three inits and its fence share one branch; the run's words move after the fence.
    for (int op = 0; op < 4; ++op) {
        CHECK(all.in_branch[op]);
        CHECK(all.timed[op]);
        CHECK_FALSE(all.folded[op]);
    }
    CHECK(all.ends_branch[3] == 4);
    CHECK(all.ends_branch[0] == 0);
    CHECK(all.ends_branch[2] == 0);
    // A barrier is no part of a run, nor is a wait: the arrive before the wait stands alone.
    CHECK_FALSE(all.in_branch[4]);
    CHECK_FALSE(all.in_branch[5]);
    CHECK_FALSE(all.in_branch[6]);
    // Another thread's op ends the run: thread0's arrive and thread1's are each alone, and an
    // elected op between two of thread1's parts them.
    CHECK_FALSE(all.in_branch[7]);
    CHECK_FALSE(all.in_branch[8]);
    CHECK_FALSE(all.in_branch[10]);
    // Untimed ops are read nowhere: at level waits the inits run bare, and at none nothing is timed.
    const TimedOps waits = timed_ops(s, TraceLevel::waits);
    CHECK_FALSE(waits.in_branch[0]);
    CHECK(waits.ends_branch[3] == 0);
    const TimedOps none = timed_ops(s, TraceLevel::none);
    CHECK_FALSE(none.in_branch[1]);
}
