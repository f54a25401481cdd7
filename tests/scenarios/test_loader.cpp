#include <catch2/catch.hpp>

#include <filesystem>

#include "scenarios/loader.h"

using namespace tmasim;

static std::string catalog(const std::string& rel) { return std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/" + rel; }

TEST_CASE("the 1-D guide scenario loads into the IR") {
    Scenario sc = load_scenario_file(catalog("guide/bulk_add_one_1d.yaml"));
    CHECK(sc.name == "bulk_add_one_1d");
    CHECK(sc.launch.block == 256);
    REQUIRE(sc.globals.size() == 1);
    CHECK(sc.globals[0].type == DType::i32);
    CHECK(sc.globals[0].init.kind == InitSpec::Kind::iota);
    REQUIRE(sc.program.size() == 12);
    const Op& load = sc.program[2];
    CHECK(load.kind == OpKind::bulk_load);
    CHECK(load.id == 2);
    CHECK(load.label == "load");
    CHECK(load.by.kind == Selector::Kind::elected);
    CHECK(load.global_offset.eval_int({}) == 1024);
    CHECK(load.bytes.eval_int({}) == 4096);
    CHECK(load.loc.line == 19);
    CHECK(sc.program[4].by.kind == Selector::Kind::all);
    CHECK(sc.program[4].count.eval_int({}) == 1);  // arrive defaults to one arrival
    CHECK(sc.expect.outcome == Outcome::ok);
    CHECK(sc.content_hash.size() == 16);
}

TEST_CASE("the 2-D guide scenario keeps coordinates outermost first") {
    Scenario sc = load_scenario_file(catalog("guide/tma_2d_load_modify_store.yaml"));
    const TensorMap* m = sc.find_map("mapA");
    REQUIRE(m);
    CHECK(m->box == std::vector<int64_t>{16, 64});
    CHECK(m->box_bytes(DType::i32) == 4096);
    const Op* load = sc.find_op(2);
    REQUIRE(load);
    CHECK(load->coords[0].eval_int({}) == 16);
    CHECK(load->coords[1].eval_int({}) == 64);
    CHECK(sc.program[4].by.kind == Selector::Kind::not_elected);
    CHECK(sc.program[4].by.includes(1));
    CHECK_FALSE(sc.program[4].by.includes(0));
}

TEST_CASE("expectations of the hazard variants name a rule and an op") {
    Scenario fence = load_scenario_file(catalog("hazards/tma_2d_missing_proxy_fence.yaml"));
    CHECK(fence.expect.outcome == Outcome::hazard);
    CHECK(fence.expect.rule == "proxy.generic_to_async");
    CHECK(fence.expect.op == "store");
    Scenario hang = load_scenario_file(catalog("hazards/tma_2d_expect_tx_mismatch.yaml"));
    CHECK(hang.expect.outcome == Outcome::hang);
    CHECK(hang.program[3].bytes.eval_int({}) == 8192);
}

TEST_CASE("loops, arrays and expressions number ops in pre-order") {
    Scenario sc = load_scenario_text(R"(
scenario: ring
launch: {grid: [2], block: 64}
global:
  A: {type: f16, shape: [8, 64], init: {random: {seed: 3, min: -1, max: 1}}}
tensormaps:
  m: {tensor: A, box: [2, 64], swizzle: 128B}
shared:
  stage: {type: f16, shape: [2, 64], array: 2}
barriers:
  full: {array: 2}
program:
  - {op: mbarrier.init, barrier: "full[0]", count: 1, by: thread0}
  - {op: mbarrier.init, barrier: "full[1]", count: 1, by: thread0}
  - {op: sync}
  - op: loop
    var: i
    count: 4
    body:
      - {op: mbarrier.arrive_expect_tx, barrier: "full[i%2]", bytes: 256, by: elected}
      - {op: tma.load, map: m, coords: ["i*2", 0], dst: "stage[i%2]", barrier: "full[i%2]", by: elected}
      - {op: mbarrier.wait, barrier: "full[i%2]", parity: "(i/2)%2"}
  - {op: compute, buffer: "stage[cta]", fn: "x * 2"}
)", "ring.yaml");
    auto ops = sc.all_ops();
    REQUIRE(ops.size() == 8);
    CHECK(ops[3]->kind == OpKind::loop);
    CHECK(ops[5]->id == 5);
    CHECK(ops[5]->dst.name == "stage");
    CHECK(ops[5]->dst.index.eval_int({{"i", 3}}) == 1);
    CHECK(ops[6]->parity.eval_int({{"i", 2}}) == 1);
    CHECK(ops[7]->buffer.index.variables() == std::vector<std::string>{"cta"});
}
