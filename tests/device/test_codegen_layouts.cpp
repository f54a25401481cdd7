// Codegen of the layout ops: one wrapper call per vector of a thread's registers, so the
// generated kernel issues the instructions the model counts (vector width and number per
// thread), stores guarded by the owner predicate where the layout broadcasts, and
// convert_layout through the scratch with its two barriers (none when trivial). Also an
// f16 tile with 2-byte vectors (sub-word registers), which no catalog scenario has.
#include <catch2/catch.hpp>

#include "catalog_support.h"

#include <regex>

#include "device/emit/codegen.h"
#include "device_test_support.h"
#include "scenarios/layout_ops.h"
#include "scenarios/loader.h"

using namespace tmasim;
using namespace tmasim::device;
using namespace tmasim::device::test;

namespace {

int count(const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// The generated lines of op `label` (between its entry and the next op's).
std::string op_code(const Scenario& s, const std::string& src, const std::string& label) {
    const int id = tmasim::test::op_id(s, label);
    const size_t from = src.find("// op " + std::to_string(id) + ":");
    REQUIRE(from != std::string::npos);
    const size_t to = src.find("// op ", from + 1);
    return src.substr(from, to == std::string::npos ? std::string::npos : to - from);
}

}  // namespace

TEST_CASE("layout codegen: one instruction per vector, the model's width and count", "[device][codegen][layouts]") {
    const std::vector<std::pair<int, std::string>> r_wrapper = {
        {1, "ld_global_b32"}, {2, "ld_global_v2_b32"}, {4, "ld_global_v4_b32"}, {8, "ld_global_v4_b32"}, {16, "ld_global_v4_b32"}};
    for (const auto& [r, wrapper] : r_wrapper) {
        INFO("R=" << r);
        const Scenario s = tmasim::test::catalog("layouts/memcpy_1d_r" + std::to_string(r) + ".yaml");
        const std::string src = generate_kernel_source(s);
        const LayoutOpView v = layout_op_view(s, *s.find_op(tmasim::test::op_id(s, "load")));
        const std::string load = op_code(s, src, "load"), store = op_code(s, src, "store");
        CHECK(count(load, wrapper + "(") == v.plan.per_thread);
        const std::string st = std::regex_replace(wrapper, std::regex("^ld_"), "st_");
        CHECK(count(store, st + "(") == v.plan.per_thread);
        CHECK(count(load, "(off) < (8000LL)") == v.plan.per_thread);  // the mask, once per vector
    }
}

TEST_CASE("layout codegen: broadcast copies do not store, convert_layout has its barriers", "[device][codegen][layouts]") {
    const Scenario maps = tmasim::test::catalog("layouts/tutorial_maps.yaml");
    const std::string src = generate_kernel_source(maps);
    CHECK(op_code(maps, src, "store").find("const bool owner = (lane & 0) == 0 && (warp & 3) == 0;") != std::string::npos);
    CHECK(op_code(maps, src, "load").find("const bool owner = true;") != std::string::npos);

    const Scenario inout = tmasim::test::catalog("layouts/memcpy_2d_inout_swizzled.yaml");
    const std::string code = op_code(inout, generate_kernel_source(inout), "convert");
    CHECK(count(code, "barrier_sync_aligned_0();") == 2);
    CHECK(count(code, "st_volatile_shared_b32(") == 128);  // 128 registers, 4-byte vectors
    CHECK(count(code, "ld_volatile_shared_b32(") == 128);  // swizzled: no wider vector

    const Scenario eq = tmasim::test::catalog("layouts/equivalent_layouts.yaml");
    const std::string rename = op_code(eq, generate_kernel_source(eq), "to_slice");
    CHECK(count(rename, "barrier_sync") == 0);
    CHECK(count(rename, "shared") == 0);
}

TEST_CASE("layout codegen: f16 tiles with 2-byte vectors compile", "[device][codegen][layouts][nvrtc]") {
    const char* text = R"yaml(
scenario: layout_f16_halves
launch: {grid: [1], block: 64}
global:
  src: {type: f16, shape: [64, 64], init: iota}
  dst: {type: f16, shape: [64, 64]}
shared:
  scratch: {type: f16, shape: [64, 64]}
layouts:
  cols: {blocked: {size_per_thread: [2, 1], threads_per_warp: [32, 1], warps_per_cta: [1, 2], order: [0, 1]}}
  rows: {blocked: {size_per_thread: [1, 2], threads_per_warp: [1, 32], warps_per_cta: [2, 1], order: [1, 0]}}
tiles:
  a: {type: f16, shape: [64, 64], layout: cols}
  b: {type: f16, shape: [64, 64], layout: rows}
program:
  - {op: layout.global_load, tile: a, global: src, base: 0, strides: [64, 1], label: load}
  - {op: convert_layout, tile: a, to: b, scratch: scratch, label: convert}
  - {op: layout.global_store, tile: b, global: dst, base: 0, strides: [64, 1], label: store}
)yaml";
    const Scenario s = load_scenario_text(text, "f16.yaml");
    const std::string src = generate_kernel_source(s);
    CHECK(count(op_code(s, src, "load"), "ld_global_b16(") == 64);  // dim 0 is strided: one element each
    CHECK(count(op_code(s, src, "store"), "st_global_b32(") == 32);  // two f16 per 4-byte vector
    require_compiles(src, "sm_90a");
}

TEST_CASE("layout codegen: layout.reduce shuffles across lanes and meets across warps in shared memory", "[device][codegen][layouts]") {
    const Scenario lanes = tmasim::test::catalog("layouts/reduce_layout_lanes.yaml");
    const std::string a = op_code(lanes, generate_kernel_source(lanes), "reduce");
    CHECK(count(a, "shfl_sync_bfly_b32(") == 5 * 128);
    CHECK(count(a, "barrier_sync_aligned_0();") == 2);
    CHECK(count(a, "st_volatile_shared_b32(") == 128);
    CHECK(count(a, "ld_volatile_shared_b32(") == 4 * 128);
    const Scenario rows = tmasim::test::catalog("layouts/reduce_layout_thread_rows.yaml");
    const std::string b = op_code(rows, generate_kernel_source(rows), "reduce");
    CHECK(count(b, "shfl_sync_bfly_b32(") == 0);
    CHECK(count(b, "barrier_sync") == 0);
    CHECK(count(b, " + __uint_as_float(") == 127);  // one thread adds its row
}
