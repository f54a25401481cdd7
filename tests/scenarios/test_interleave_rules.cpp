// The encode rules of interleaved maps (cuTensorMapEncodeTiled, semantics.md D27) and
// the innermost element stride, at load time: what loads, and the message of what does not.
#include <catch2/catch.hpp>

#include <string>

#include "scenario_test_support.h"

using namespace tmasim;
using tmasim::test::error_of;
using tmasim::test::with;

namespace {
// A 3-D u8 tensor with a 16-byte-interleaved map (box: 2 x 1 x 16 units of 16 bytes).
const std::string kBase = R"(scenario: interleave_rules
summary: base for the interleave rule tests
source: tests/scenarios/test_interleave_rules.cpp
arch: sm_90
launch: {grid: [1], block: 32}
global:
  A: {type: u8, shape: [4, 8, 64], init: iota}
tensormaps:
  mapA: {tensor: A, box: [2, 1, 16], interleave: 16B}
shared:
  tile: {type: u8, shape: [1024], align: 1024}
barriers:
  bar: {}
program:
  - {op: mbarrier.init, barrier: bar, count: 1, by: thread0}
  - {op: sync}
  - {op: mbarrier.arrive_expect_tx, barrier: bar, bytes: 512, by: thread0}
  - {op: tma.load, map: mapA, coords: [0, 0, 0], dst: tile, barrier: bar, by: thread0}
  - {op: mbarrier.wait, barrier: bar, parity: 0}
expect:
  outcome: ok
)";
const std::string kMap = "mapA: {tensor: A, box: [2, 1, 16], interleave: 16B}";
}  // namespace

TEST_CASE("interleave: maps the driver takes load", "[scenarios][interleave]") {
    const Scenario s = load_scenario_text(kBase, "base.yaml");
    REQUIRE(s.tensormaps.size() == 1);
    CHECK(s.tensormaps[0].interleave == Interleave::b16);
    // An inner dimension of 16 units with a 128-byte swizzle (an H200 took it: the span
    // limit is for maps without interleave), and a stride in the innermost dimension.
    CHECK_NOTHROW(load_scenario_text(with(kBase, kMap, "mapA: {tensor: A, box: [2, 1, 16], interleave: 16B, swizzle: 128B}"),
                                     "sw128.yaml"));
    CHECK_NOTHROW(load_scenario_text(
        with(kBase, kMap, "mapA: {tensor: A, box: [2, 1, 16], interleave: 16B, element_strides: [1, 1, 2]}"), "es.yaml"));
    CHECK_NOTHROW(load_scenario_text(with(kBase, kMap, "mapA: {tensor: A, box: [2, 1, 16], interleave: 32B, swizzle: 32B}"),
                                     "il32.yaml"));
}

TEST_CASE("interleave: each broken encode rule has its own message", "[scenarios][interleave]") {
    CHECK_THAT(error_of(with(with(kBase, "shape: [4, 8, 64]", "shape: [8, 64]"), kMap,
                             "mapA: {tensor: A, box: [1, 16], interleave: 16B}"), "rank.yaml"),
               Catch::Contains("tensormaps.mapA.interleave: interleave 16B needs a tensor of rank 3..5, but A has rank 2"));
    CHECK_THAT(error_of(with(kBase, kMap, "mapA: {tensor: A, box: [2, 1, 16], interleave: 32B, swizzle: 64B}"), "sw.yaml"),
               Catch::Contains("tensormaps.mapA.swizzle: interleave 32B needs swizzle 32B, got 64B"));
    CHECK_THAT(error_of(with(with(kBase, "shape: [4, 8, 64]", "shape: [4, 8, 48]"), kMap,
                             "mapA: {tensor: A, box: [2, 1, 16], interleave: 32B, swizzle: 32B}"), "stride.yaml"),
               Catch::Contains("global stride of dimension 1 is 48 bytes; allowed: a multiple of 32 bytes with interleave 32B"));
    // 48-byte rows are fine with 16-byte interleave.
    CHECK_NOTHROW(load_scenario_text(with(kBase, "shape: [4, 8, 64]", "shape: [4, 8, 48]"), "stride16.yaml"));
    // The inner box must stay a multiple of 16 bytes with interleave too (the H200's driver
    // refused 8 and 24 bytes of u8).
    CHECK_THAT(error_of(with(kBase, kMap, "mapA: {tensor: A, box: [2, 1, 8], interleave: 16B}"), "inner.yaml"),
               Catch::Contains("the innermost box dimension is 8 bytes; allowed: a multiple of 16 bytes"));
    CHECK_THAT(error_of(with(kBase, kMap, "mapA: {tensor: A, box: [2, 1, 16], element_strides: [1, 1, 2]}"), "es.yaml"),
               Catch::Contains("element_strides[2] = 2 is ignored by the TMA without interleave"));
    // Without interleave the swizzle span still limits the inner box.
    CHECK_THAT(error_of(with(kBase, kMap, "mapA: {tensor: A, box: [2, 1, 64], swizzle: 32B}"), "span.yaml"),
               Catch::Contains("inner box of 64 bytes exceeds the 32B swizzle span"));
}

TEST_CASE("interleave: the box's bytes count 16-byte units and skip dimension 1", "[scenarios][interleave]") {
    // box [2, 1, 16] of 16-byte units: 2 x 16 x 16 = 512 bytes (dimension 1 moves one index).
    const Scenario s = load_scenario_text(kBase, "base.yaml");
    CHECK(s.tensormaps[0].box_bytes(DType::u8) == 512);
    CHECK_THAT(error_of(with(kBase, "shape: [1024]", "shape: [256]"), "small.yaml"),
               Catch::Contains("tma.load.dst: the box of mapA is 512 bytes but tile holds 256"));
    // Without interleave a u8 box [2, 1, 16] is 32 bytes, and the innermost stride does not count.
    const Scenario plain = load_scenario_text(with(kBase, kMap, "mapA: {tensor: A, box: [2, 1, 16]}"), "plain.yaml");
    CHECK(plain.tensormaps[0].box_bytes(DType::u8) == 32);
}
