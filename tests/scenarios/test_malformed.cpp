#include <catch2/catch.hpp>

#include "scenario_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_malformed {

namespace {

// A valid scenario; each test breaks one line of it.
const char* kBase = R"(scenario: base
launch: {grid: [1], block: 64}
global:
  A: {type: i32, shape: [64, 128], init: iota}
tensormaps:
  mapA: {tensor: A, box: [16, 64], swizzle: none}
shared:
  tile: {type: i32, shape: [16, 64]}
barriers:
  bar: {}
program:
  - {op: mbarrier.init, barrier: bar, count: 64, by: thread0}
  - {op: sync}
  - {op: tma.load, map: mapA, coords: [16, 64], dst: tile, barrier: bar, by: elected}
  - {op: mbarrier.arrive_expect_tx, barrier: bar, bytes: 4096, by: elected}
  - {op: mbarrier.arrive, barrier: bar, by: not_elected}
  - {op: mbarrier.wait, barrier: bar, parity: 0}
)";

std::string with(const std::string& from, const std::string& to) { return test::with(kBase, from, to); }
std::string error_of(const std::string& text) { return test::error_of(text, "bad.yaml"); }

}  // namespace

TEST_CASE("the base scenario of the malformed-input tests is valid") {
    CHECK_NOTHROW(load_scenario_text(kBase, "base.yaml"));
}

TEST_CASE("an unknown key is reported at its position with the allowed keys") {
    std::string msg = error_of(with("block: 64}", "blok: 64}"));
    CHECK(msg == "bad.yaml:2:21: error: launch.blok: unknown key; did you mean block? allowed: grid, cluster, block");
    msg = error_of(with("{grid: [1], block: 64}", "{grid: [1], block: 64, warps: 2}"));
    CHECK(msg == "bad.yaml:2:32: error: launch.warps: unknown key; allowed: grid, cluster, block");
    msg = error_of(with("parity: 0}", "parity: 0, timeout: 5}"));
    CHECK_THAT(msg, Catch::StartsWith("bad.yaml:17:50: error: program[5].timeout: unknown key; allowed: op, by, label, trace, barrier, parity"));
}

TEST_CASE("a value of the wrong type names the key and what was found") {
    std::string msg = error_of(with("block: 64}", "block: many}"));
    CHECK(msg == "bad.yaml:2:28: error: launch.block: expected an integer, got \"many\"; allowed: 1..1024");
    msg = error_of(with("shape: [16, 64]}", "shape: 16}"));
    CHECK(msg == "bad.yaml:8:28: error: shared.tile.shape: expected a list of integers, got \"16\"");
}

TEST_CASE("a bad enum value lists the allowed spellings") {
    std::string msg = error_of(with("swizzle: none", "swizzle: 96B"));
    CHECK(msg == "bad.yaml:6:45: error: tensormaps.mapA.swizzle: unknown swizzle \"96B\"; allowed: none, 32B, 64B, 128B");
    msg = error_of(with("type: i32, shape: [16", "type: int, shape: [16"));
    CHECK(msg == "bad.yaml:8:16: error: shared.tile.type: unknown type \"int\"; allowed: f32, f16, bf16, u8, i32");
    msg = error_of(with("{op: sync}", "{op: syncthreads}"));
    CHECK_THAT(msg, Catch::StartsWith("bad.yaml:13:10: error: program[1].op: unknown op \"syncthreads\"; allowed: mbarrier.init,"));
}

TEST_CASE("an out-of-range box fails with the encode rule") {
    std::string msg = error_of(with("box: [16, 64]", "box: [16, 300]"));
    CHECK(msg == "bad.yaml:6:3: error: tensormaps.mapA.box: box[1] = 300 is out of range; allowed: 1..256 [cuTensorMapEncodeTiled]");
    msg = error_of(with("box: [16, 64]", "box: [16, 3]"));
    CHECK_THAT(msg, Catch::Contains("allowed: a multiple of 16 bytes"));
    msg = error_of(with("box: [16, 64], swizzle: none", "box: [16, 64], swizzle: 128B"));
    CHECK_THAT(msg, Catch::Contains("inner box of 256 bytes exceeds the 128B swizzle span"));
}

TEST_CASE("a missing barrier names the declared ones") {
    std::string msg = error_of(with("{op: mbarrier.wait, barrier: bar,", "{op: mbarrier.wait, barrier: full,"));
    CHECK(msg == "bad.yaml:17:34: error: mbarrier.wait.barrier: no barrier named 'full'; declared: bar");
}

TEST_CASE("other structural errors fail closed") {
    CHECK_THAT(error_of(with("parity: 0}", "parity: 2}")),
               Catch::Contains("\"2\" evaluates to 2; allowed: 0..1"));
    CHECK_THAT(error_of(with("by: thread0}", "by: thread64}")),
               Catch::Contains("thread64 is outside the block; allowed: thread0..thread63"));
    CHECK_THAT(error_of(with("coords: [16, 64]", "coords: [16]")),
               Catch::Contains("map mapA has rank 2; allowed: exactly that many coordinates"));
    CHECK_THAT(error_of(with("coords: [16, 64]", "coords: [\"i*16\", 64]")),
               Catch::Contains("unknown variable 'i'; allowed here: cta"));
    CHECK_THAT(error_of(with("launch: {grid: [1]", "launch: {grid: [1")), Catch::StartsWith("bad.yaml:"));
    CHECK_THAT(error_of(""), Catch::Contains("the file is empty"));
    CHECK_THAT(error_of(with("{op: sync}", "{op: mbarrier.arrive, barrier: bar, count: 0}")),
               Catch::Contains("evaluates to 0; allowed: 1..1048575"));
}

TEST_CASE("a missing required key points at the mapping that lacks it") {
    CHECK(error_of(with("grid: [1], block: 64}", "grid: [1]}")) ==
          "bad.yaml:2:9: error: launch.block: required key is missing");
}

TEST_CASE("a key given twice is an error at its second occurrence") {
    CHECK(error_of(with("launch: {grid: [1], block: 64}", "launch: {grid: [1], block: 64, block: 32}")) ==
          "bad.yaml:2:32: error: launch.block: the key appears twice (first at line 2); allowed: each key once");
    CHECK_THAT(error_of(std::string(kBase) + "scenario: again\n"),
               Catch::Contains("error: scenario: the key appears twice (first at line 1)"));
}

}  // namespace test_malformed
