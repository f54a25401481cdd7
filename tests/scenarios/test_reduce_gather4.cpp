#include <catch2/catch.hpp>

#include "scenario_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_reduce_gather4 {

namespace {

const char* kBase = R"(scenario: rg
arch: sm_100
launch: {grid: [1], block: 32}
global:
  X: {type: bf16, shape: [64, 64], init: iota}
  S: {type: f32, shape: [256], init: {fill: 1}}
tensormaps:
  rowmap: {tensor: X, box: [1, 64]}
  smap: {tensor: S, box: [64]}
shared:
  rows4: {type: bf16, shape: [4, 64]}
  acc: {type: f32, shape: [64]}
barriers:
  bar: {}
program:
  - {op: mbarrier.init, barrier: bar, count: 1, by: thread0}
  - {op: sync}
  - {op: mbarrier.arrive_expect_tx, barrier: bar, bytes: 512, by: thread0}
  - {op: tma.gather4, map: rowmap, rows: [3, 10, -3, 1000000], col: 0, dst: rows4, barrier: bar, by: thread0}
  - {op: mbarrier.wait, barrier: bar, parity: 0}
  - {op: tma.scatter4, map: rowmap, rows: [0, 1, 2, 3], col: 8, src: rows4, by: thread0}
  - {op: bulk.reduce, src: acc, global: S, offset: 64, bytes: 256, reduce: add, by: thread0}
  - {op: tma.reduce, map: smap, coords: [128], src: acc, reduce: add, by: thread0}
  - {op: bulk.commit_group, by: thread0}
  - {op: bulk.wait_group, n: 0, by: thread0}
)";

std::string with(const std::string& from, const std::string& to) { return test::with(kBase, from, to); }
std::string error_of(const std::string& text) { return test::error_of(text, "rg.yaml"); }

}  // namespace

TEST_CASE("reductions and Blackwell gather4/scatter4 load into the IR") {
    const Scenario sc = load_scenario_text(kBase, "rg.yaml");
    const Op& g = sc.program[3];
    CHECK(g.kind == OpKind::tma_gather4);
    REQUIRE(g.rows.size() == 4);
    CHECK(g.rows[2].eval_int({}) == -3);
    CHECK(g.rows[3].eval_int({}) == 1000000);
    CHECK(g.col.eval_int({}) == 0);
    CHECK(sc.program[5].kind == OpKind::tma_scatter4);
    CHECK(sc.program[6].kind == OpKind::bulk_reduce);
    CHECK(sc.program[6].reduce == ReduceOp::add);
    CHECK(sc.program[7].kind == OpKind::tma_reduce);
}

TEST_CASE("gather4, scatter4 and reductions fail closed on their PTX rules") {
    CHECK_THAT(error_of(with("arch: sm_100", "arch: sm_90")), Catch::Contains("needs arch: sm_100"));
    CHECK_THAT(error_of(with("rows: [3, 10, -3, 1000000]", "rows: [3, 10, -3]")),
               Catch::Contains("expected a list of exactly 4 row coordinates"));
    CHECK_THAT(error_of(with("rowmap: {tensor: X, box: [1, 64]}", "rowmap: {tensor: X, box: [2, 64]}")),
               Catch::Contains("must be 2-D with box [1, width]"));
    CHECK_THAT(error_of(with("rowmap: {tensor: X, box: [1, 64]}", "rowmap: {tensor: X, box: [1, 8]}")),
               Catch::Contains("is 16 bytes; allowed: at least 32 bytes"));
    CHECK_THAT(error_of(with("reduce: add, by: thread0}\n  - {op: tma.reduce", "reduce: inc, by: thread0}\n  - {op: tma.reduce")),
               Catch::Contains("has no .inc for f32 elements"));
    CHECK_THAT(error_of(with("reduce: add, by: thread0}\n  - {op: bulk.commit", "reduce: mul, by: thread0}\n  - {op: bulk.commit")),
               Catch::Contains("unknown reduction \"mul\"; allowed: add, min, max, inc, dec, and, or, xor"));
}

}  // namespace test_reduce_gather4
