// The layouts:/tiles: sections and the layout ops fail closed: each mistake is reported at
// its file:line:col with the key and what is allowed.
#include <catch2/catch.hpp>

#include "scenario_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_layout_format {

namespace {

const char* kBase = R"(scenario: layout_format
launch: {grid: [2], block: 128}
global:
  src: {type: f32, shape: [4096], init: iota}
  dst: {type: f32, shape: [4096]}
  half: {type: f16, shape: [4096]}
shared:
  scratch: {type: f32, shape: [2048]}
layouts:
  r4: {blocked: {size_per_thread: [4], threads_per_warp: [32], warps_per_cta: [4], order: [0]}}
  parent: {blocked: {size_per_thread: [1, 1], threads_per_warp: [32, 1], warps_per_cta: [4, 1], order: [1, 0]}}
  rows: {slice: {dim: 1, parent: parent}}
  swz: {swizzled_shared: {vec: 4, per_phase: 1, max_phase: 8, order: [0]}}
tiles:
  a: {type: f32, shape: [2048], layout: r4}
  b: {type: f32, shape: [2048], layout: rows}
program:
  - {op: layout.global_load, tile: a, global: src, base: "cta*2048", strides: [1], mask: "off < 4000"}
  - {op: convert_layout, tile: a, to: b, scratch: scratch}
  - {op: layout.shared_store, tile: b, buffer: scratch, layout: swz}
  - {op: sync}
  - {op: layout.shared_load, tile: a, buffer: scratch, layout: swz}
  - {op: layout.global_store, tile: a, global: dst, base: "cta*2048", strides: [1]}
)";

std::string with(const std::string& from, const std::string& to) { return test::with(kBase, from, to); }
std::string error_of(const std::string& text) { return test::error_of(text, "lf.yaml"); }

}  // namespace

TEST_CASE("layout format: the base scenario loads", "[scenarios][layouts]") {
    const Scenario s = load_scenario_text(kBase, "lf.yaml");
    REQUIRE(s.layouts.size() == 4);
    REQUIRE(s.tiles.size() == 2);
    CHECK(s.tile_layout("b").lane.size() == 5);
}

TEST_CASE("layout format: bad layouts name their key", "[scenarios][layouts]") {
    CHECK_THAT(error_of(with("threads_per_warp: [32], warps", "threads_per_warp: [16], warps")),
               Catch::StartsWith("lf.yaml:10:58: error: layouts.r4.blocked.threads_per_warp:") && Catch::Contains("multiplies to 16"));
    CHECK_THAT(error_of(with("{blocked: {size_per_thread: [4]", "{blocked: {size_per_thread: [3]")),
               Catch::Contains("not a power of two"));
    CHECK_THAT(error_of(with("parent: parent}", "parent: nothing}")),
               Catch::StartsWith("lf.yaml:12:") && Catch::Contains("no register layout named 'nothing' declared before"));
    CHECK_THAT(error_of(with("rows: {slice:", "rows: {sliced:")), Catch::Contains("allowed: blocked, slice, linear"));
    CHECK_THAT(error_of(with("layout: rows}", "layout: swz}")), Catch::Contains("is a shared layout"));
    CHECK_THAT(error_of(with("a: {type: f32, shape: [2048]", "a: {type: f32, shape: [2000]")),
               Catch::StartsWith("lf.yaml:15:") && Catch::Contains("not a power of two"));
    CHECK_THAT(error_of(with("warps_per_cta: [4], order: [0]", "warps_per_cta: [2], order: [0]")),
               Catch::Contains("spreads over 2 warp(s), the block has 128 threads"));
}

TEST_CASE("layout format: bad layout ops name their key", "[scenarios][layouts]") {
    CHECK_THAT(error_of(with("tile: a, global: src", "tile: c, global: src")), Catch::Contains("no tile named 'c'"));
    CHECK_THAT(error_of(with("global: src, base", "global: half, base")), Catch::Contains("holds f16, the tile a f32"));
    CHECK_THAT(error_of(with("strides: [1], mask", "strides: [1, 1], mask")), Catch::Contains("2 strides for a rank-1 tile"));
    CHECK_THAT(error_of(with("mask: \"off < 4000\"", "mask: \"i1 < 4000\"")), Catch::Contains("unknown variable 'i1'"));
    CHECK_THAT(error_of(with("base: \"cta*2048\", strides: [1], mask", "base: \"cta*2048 + 2\", strides: [1], mask")),
               Catch::Contains("the layout moves 16-byte vectors, so allowed: a multiple of 4"));
    CHECK_THAT(error_of(with("global: dst, base: \"cta*2048\"", "global: dst, base: \"cta*2048 + 64\"")),
               Catch::Contains("reaches elements 2112..4159 of dst") && Catch::Contains("or a mask"));
    CHECK_THAT(error_of(with("to: b, scratch", "to: a, scratch")), Catch::Contains("converts a into itself"));
    CHECK_THAT(error_of(with("scratch: {type: f32, shape: [2048]}", "scratch: {type: f32, shape: [1024]}")),
               Catch::Contains("has 1024 elements, the tile 2048"));
    CHECK_THAT(error_of(with("max_phase: 8, order: [0]}", "max_phase: 8, order: [1]}")),
               Catch::Contains("order"));
    CHECK_THAT(error_of(with("- {op: sync}", "- {op: layout.shared_load, tile: a, buffer: scratch, by: warp0}")),
               Catch::Contains("allowed: all"));
    CHECK_THAT(error_of(with("layout: swz}\n  - {op: sync}", "layout: nothing}\n  - {op: sync}")),
               Catch::Contains("no shared layout named 'nothing'"));
}

TEST_CASE("layout format: a linear layout with dependent non-zero bases is refused", "[scenarios][layouts]") {
    // Lane 1 and lane 2 both reach element 2: two holders that are not a broadcast.
    const std::string text = with("rows: {slice: {dim: 1, parent: parent}}",
                                  "rows: {linear: {reg: [[1], [8], [16], [32], [64], [128], [256], [512], [1024]], "
                                  "lane: [[2], [2], [4], [0], [0]], warp: [[0], [0]], shape: [2048]}}");
    CHECK_THAT(error_of(text), Catch::Contains("through non-zero bases"));
}

TEST_CASE("layout format: layout.reduce needs the slice layout and, across warps, a scratch", "[scenarios][layouts]") {
    const char* text = R"(scenario: reduce_format
launch: {grid: [1], block: 128}
global:
  src: {type: f32, shape: [128, 128], init: iota}
shared:
  partials: {type: f32, shape: [512]}
layouts:
  lanes: {blocked: {size_per_thread: [1, 1], threads_per_warp: [1, 32], warps_per_cta: [1, 4], order: [1, 0]}}
  rows: {slice: {dim: 1, parent: lanes}}
  cols: {slice: {dim: 0, parent: lanes}}
tiles:
  value: {type: f32, shape: [128, 128], layout: lanes}
  sums: {type: f32, shape: [128], layout: rows}
program:
  - {op: layout.global_load, tile: value, global: src, base: 0, strides: [128, 1]}
  - {op: layout.reduce, tile: value, axis: 1, to: sums, scratch: partials}
)";
    REQUIRE_NOTHROW(load_scenario_text(text, "rf.yaml"));
    CHECK_THAT(test::error_of(test::with(text, "layout: rows}", "layout: cols}"), "rf.yaml"),
               Catch::Contains("is not SliceLayout(1, lanes)"));
    CHECK_THAT(test::error_of(test::with(text, ", scratch: partials}", "}"), "rf.yaml"),
               Catch::Contains("at least 512 elements (warps x sums's elements)"));
    CHECK_THAT(test::error_of(test::with(text, "axis: 1, to", "axis: 2, to"), "rf.yaml"), Catch::Contains("axis"));
    CHECK_THAT(test::error_of(test::with(text, "scratch: partials}", "scratch: partials, combine: min}"), "rf.yaml"),
               Catch::Contains("allowed: add, max"));
}

}  // namespace test_layout_format
