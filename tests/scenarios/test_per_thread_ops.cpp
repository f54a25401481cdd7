#include <catch2/catch.hpp>

#include "scenario_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_per_thread_ops {

namespace {

const char* kBase = R"(scenario: per_thread
launch: {grid: [1], block: 64}
global:
  G: {type: f32, shape: [4096], init: iota}
tensormaps:
  m: {tensor: G, box: [64]}
shared:
  s: {type: f32, shape: [32, 32]}
barriers:
  bar: {}
program:
  - {op: mbarrier.init, barrier: bar, count: 64, by: thread0}
  - {op: sync}
  - {op: cp.async, global: G, src_index: "tid*4", dst: s, dst_index: "tid*4", size: 16, cache: cg}
  - {op: cp.async, global: G, src_index: "tid", dst: s, dst_index: "1024 - 64 + tid", size: 4, src_size: 0}
  - {op: cp.async.commit_group}
  - {op: cp.async.mbarrier.arrive, barrier: bar, noinc: false}
  - {op: cp.async.wait_group, n: 0}
  - {op: cp.async.wait_all}
  - {op: shared.store, buffer: s, index: "lane*32", value: "tid + 0.5"}
  - {op: shared.load, buffer: s, index: "(lane%8)*32 + warp*4", width: 16}
  - {op: global.load, global: G, index: "tid*2", width: 8}
  - {op: tma.prefetch, map: m, coords: [64], by: thread3}
  - {op: bulk.prefetch, global: G, offset: 64, bytes: 1024, by: elected}
)";

std::string with(const std::string& from, const std::string& to) { return test::with(kBase, from, to); }
std::string error_of(const std::string& text) { return test::error_of(text, "pt.yaml"); }

}  // namespace

TEST_CASE("per-thread ops load with their expressions over tid, lane and warp") {
    const Scenario sc = load_scenario_text(kBase, "pt.yaml");
    const Op& cp = sc.program[2];
    CHECK(cp.kind == OpKind::cp_async);
    CHECK(cp.cache == "cg");
    CHECK(cp.size.eval_int({}) == 16);
    CHECK(cp.src_index.eval_int({{"tid", 5}}) == 20);
    CHECK(cp.src_size.empty());
    CHECK(sc.program[3].src_size.eval_int({}) == 0);
    CHECK(sc.program[5].kind == OpKind::cp_async_mbarrier_arrive);
    CHECK_FALSE(sc.program[5].noinc);
    CHECK(sc.program[8].value.eval_float({{"tid", 3.0f}}) == 3.5f);
    CHECK(sc.program[9].width.eval_int({}) == 16);
    CHECK(sc.program[9].index.eval_int({{"lane", 9}, {"warp", 1}}) == 36);
    CHECK(sc.program[11].kind == OpKind::tma_prefetch);
    CHECK(sc.program[12].kind == OpKind::bulk_prefetch);
}

TEST_CASE("per-thread accesses are checked for every executing thread") {
    // lane*34 runs past the 1024-element buffer for lane 31 only (1054).
    CHECK_THAT(error_of(with("index: \"lane*32\"", "index: \"lane*34\"")),
               Catch::Contains("\"lane * 34\" evaluates to 1054 (lane=31, tid=31, warp=0); allowed: 0..1023"));
    CHECK_THAT(error_of(with("index: \"(lane%8)*32 + warp*4\"", "index: \"(lane%8)*32 + warp*4 + 1\"")),
               Catch::Contains("not aligned to the 16-byte access"));
    CHECK_THAT(error_of(with("width: 16}", "width: 12}")), Catch::Contains("12 bytes; allowed: 1, 2, 4, 8, 16"));
    CHECK_THAT(error_of(with("size: 16, cache: cg", "size: 8, cache: cg")),
               Catch::Contains("cache cg copies 16 bytes only"));
    CHECK_THAT(error_of(with("size: 4, src_size: 0", "size: 4, src_size: 8")),
               Catch::Contains("src-size above cp-size is undefined"));
    CHECK_THAT(error_of(with("noinc: false", "noinc: maybe")), Catch::Contains("expected true or false"));
    CHECK_THAT(error_of(with("cache: cg", "cache: cs")), Catch::Contains("unknown cache \"cs\"; allowed: ca, cg"));
    CHECK_THAT(error_of(with("index: \"tid*2\"", "index: \"i*2\"")), Catch::Contains("unknown variable 'i'"));
    CHECK_THAT(error_of(with("width: 16}", "width: \"tid\"}")), Catch::Contains("must be a constant"));
}

}  // namespace test_per_thread_ops
