// Products of sizes and init values that do not fit their type are refused at their key with
// the allowed range (issue 40): each of these loaded before and ran changed, a u8 tensor of
// [2^32, 2^32] as 0 bytes, 2.4e14 CTAs as one, i32 fill 2^31 as -2^31, u8 300 as 44.
#include <catch2/catch.hpp>

#include "scenario_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_size_limits {

namespace {

const char* kBase = R"(scenario: base
launch: {grid: [2], block: 32}
global:
  A: {type: f32, shape: [64, 64], init: iota}
  I: {type: i32, shape: [64], init: {fill: 1}}
shared:
  tile: {type: f32, shape: [32, 32]}
layouts:
  lin: {linear: {reg: [], lane: [[1], [2], [4], [8], [16]], warp: [], shape: [32]}}
program:
  - {op: sync}
)";

const std::string kI = "  I: {type: i32, shape: [64], init: {fill: 1}}";

std::string error_of(const std::string& from, const std::string& to) {
    return test::error_of(test::with(kBase, from, to), "bad.yaml");
}

// The scenario with tensor I declared as `decl` ("{type: u8, ...}").
std::string error_of_i(const std::string& decl) { return error_of(kI, "  I: " + decl); }

void loads_with_i(const std::string& decl) {
    INFO(decl);
    CHECK_NOTHROW(load_scenario_text(test::with(kBase, kI, "  I: " + decl), "ok.yaml"));
}

}  // namespace

TEST_CASE("the size-limit base scenario is valid", "[scenarios][limits]") {
    CHECK_NOTHROW(load_scenario_text(kBase, "base.yaml"));
}

TEST_CASE("shape, shared-buffer and grid products that wrap int64 are refused at their key", "[scenarios][limits]") {
    CHECK(error_of_i("{type: u8, shape: [4294967296, 4294967296], init: iota}") ==
          "bad.yaml:5:24: error: global.I.shape: tensor is larger than 1 GiB: [4294967296, 4294967296] elements of "
          "1 byte(s); allowed: at most 1 GiB (1073741824 bytes) per tensor");
    // 2^32 * 2^32 * 4 is 0 in int64: the product wrapped exactly to nothing.
    CHECK_THAT(error_of_i("{type: i32, shape: [4294967296, 4294967296], init: iota}"),
               Catch::StartsWith("bad.yaml:5:25: error: global.I.shape: tensor is larger than 1 GiB"));
    CHECK(error_of("tile: {type: f32, shape: [32, 32]}", "tile: {type: f32, shape: [65536, 65536, 65536, 65536]}") ==
          "bad.yaml:7:28: error: shared.tile.shape: shared buffer too large: [65536, 65536, 65536, 65536] elements of "
          "4 byte(s); allowed: at most 232448 bytes of shared memory (227 KB per block on sm_90)");
    CHECK(error_of("grid: [2]", "grid: [65535, 65535, 56000]") ==
          "bad.yaml:2:16: error: launch.grid: [65535, 65535, 56000] is more than 2147483647 CTAs; allowed: a product "
          "of at most 2147483647 CTAs (the backends launch the grid 1-D, gridDim.x < 2^31)");
    CHECK(error_of("shape: [32]}}", "shape: [65536, 65536]}}") ==
          "bad.yaml:9:78: error: layouts.lin.linear.shape: [65536, 65536] is more than 65536 elements; allowed: at most "
          "65536 (a tile's limit)");
    // Just inside: a 1 GiB tensor and a grid of 2^31 - 1 CTAs in three extents.
    loads_with_i("{type: u8, shape: [32768, 32768], init: {fill: 0}}");
    CHECK_NOTHROW(load_scenario_text(test::with(kBase, "grid: [2]", "grid: [1, 1, 65535]"), "ok.yaml"));
}

TEST_CASE("fill values that an element of the type cannot hold are refused with the type's range", "[scenarios][limits]") {
    CHECK(error_of_i("{type: i32, shape: [64], init: {fill: 1.5}}") ==
          "bad.yaml:5:44: error: global.I.init.fill: 1.5 is not an integer, and i32 holds only integers; allowed: "
          "integers -2147483648..2147483647 (i32)");
    CHECK(error_of_i("{type: i32, shape: [64], init: {fill: 2147483648}}") ==
          "bad.yaml:5:44: error: global.I.init.fill: 2147483648 does not fit i32; allowed: integers "
          "-2147483648..2147483647 (i32)");
    CHECK(error_of_i("{type: u8, shape: [64], init: {fill: 300}}") ==
          "bad.yaml:5:43: error: global.I.init.fill: 300 does not fit u8; allowed: integers 0..255 (u8)");
    CHECK(error_of_i("{type: u8, shape: [64], init: {fill: -1}}") ==
          "bad.yaml:5:43: error: global.I.init.fill: -1 does not fit u8; allowed: integers 0..255 (u8)");
    CHECK(error_of_i("{type: f16, shape: [64], init: {fill: 70000}}") ==
          "bad.yaml:5:44: error: global.I.init.fill: 70000 does not fit f16; allowed: -65504..65504 (f16)");
    CHECK(error_of_i("{type: bf16, shape: [64], init: {fill: 3.4e38}}") ==
          "bad.yaml:5:45: error: global.I.init.fill: 3.4e38 does not fit bf16; allowed: -3.3895314e38..3.3895314e38 "
          "(bf16)");
    // The ends of each range are values the type holds.
    for (const char* ok : {"{type: i32, shape: [64], init: {fill: -2147483648}}",
                           "{type: i32, shape: [64], init: {fill: 2147483647}}", "{type: u8, shape: [64], init: {fill: 255}}",
                           "{type: u8, shape: [64], init: {fill: -0}}", "{type: f16, shape: [64], init: {fill: 65504}}",
                           "{type: f16, shape: [64], init: {fill: 0.1}}"})
        loads_with_i(ok);
}

TEST_CASE("random ranges outside the type, or holding no integer of it, are refused", "[scenarios][limits]") {
    CHECK(error_of_i("{type: u8, shape: [64], init: {random: {seed: 1, min: 0, max: 256}}}") ==
          "bad.yaml:5:68: error: global.I.init.random.max: 256 does not fit u8; allowed: 0..255 (u8)");
    CHECK(error_of_i("{type: u8, shape: [64], init: {random: {seed: 1, min: -1, max: 3}}}") ==
          "bad.yaml:5:60: error: global.I.init.random.min: -1 does not fit u8; allowed: 0..255 (u8)");
    CHECK(error_of_i("{type: i32, shape: [64], init: {random: {seed: 1, min: -3e9, max: 0}}}") ==
          "bad.yaml:5:61: error: global.I.init.random.min: -3e9 does not fit i32; allowed: -2147483648..2147483647 "
          "(i32)");
    CHECK(error_of_i("{type: f16, shape: [64], init: {random: {seed: 1, min: 0, max: 100000}}}") ==
          "bad.yaml:5:69: error: global.I.init.random.max: 100000 does not fit f16; allowed: -65504..65504 (f16)");
    // [0.2, 0.8] of u8 once gave 1 for every element, outside the range asked for.
    CHECK(error_of_i("{type: u8, shape: [64], init: {random: {seed: 1, min: 0.2, max: 0.8}}}") ==
          "bad.yaml:5:70: error: global.I.init.random.max: no integer lies in [min, max], and u8 holds only integers; "
          "allowed: a range holding at least one integer");
    loads_with_i("{type: u8, shape: [64], init: {random: {seed: 1, min: 0, max: 255}}}");
    loads_with_i("{type: u8, shape: [64], init: {random: {seed: 1, min: 0.5, max: 1.5}}}");
    loads_with_i("{type: f16, shape: [64], init: {random: {seed: 1, min: -65504, max: 65504}}}");
}

}  // namespace test_size_limits
