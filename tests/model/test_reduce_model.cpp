// cp.reduce.async.bulk(.tensor) on the model: the element operation of every PTX
// combination (f32 add; f16/bf16 add, min, max rounded to nearest even; i32 add with
// wrap, signed min/max, and/or/xor), and whole reductions through the TMA engine: values,
// out-of-bounds skipping of tensor reduces, faults and the store-like races.
#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "model/copy/element_reduce.h"
#include "model/run/run_model.h"
#include "scenarios/loader.h"
#include "scenarios/values.h"

using namespace tmasim;
using tmasim::model::ElementReduce;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_reduce_model {

namespace {

int32_t reduce_i32(ReduceOp op, int32_t global, int32_t src) {
    uint8_t d[4], s[4];
    std::memcpy(d, &global, 4);
    std::memcpy(s, &src, 4);
    ElementReduce(op, DType::i32).apply(d, s);
    int32_t out;
    std::memcpy(&out, d, 4);
    return out;
}

float reduce_float(ReduceOp op, DType t, float global, float src) {
    uint8_t d[4] = {}, s[4] = {};
    store_element_float(d, t, 0, global);
    store_element_float(s, t, 0, src);
    ElementReduce(op, t).apply(d, s);
    return load_element_float(d, t, 0);
}

std::string read_file(const std::string& rel) {
    std::ifstream in(std::string(TMASIM_SOURCE_DIR) + "/" + rel);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

const MemoryImage& image(const RunResult& r, const std::string& name) {
    for (const auto& m : r.memory)
        if (m.name == name) return m;
    FAIL("no memory image " << name);
    return r.memory.front();
}

RunResult run_text(const std::string& text) { return run_model(load_scenario_text(text, "reduce_test.yaml")); }

const char* kWrap = R"(scenario: wrap
arch: sm_90
launch: {grid: [1], block: 32}
global:
  acc: {type: i32, shape: [64], init: {fill: 2147483647}}
shared:
  one: {type: i32, shape: [64], align: 16}
program:
  - {op: compute, buffer: one, fn: "1"}
  - {op: fence.proxy.async}
  - {op: sync}
  - {op: bulk.reduce, src: one, global: acc, offset: 0, bytes: 256, reduce: add, by: elected, label: reduce}
  - {op: bulk.commit_group, by: elected}
  - {op: bulk.wait_group, n: 0, by: elected, label: wait}
expect: {outcome: ok}
)";

std::string wrap_with(const std::string& from, const std::string& to) {
    std::string s = kWrap;
    const size_t at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("reduce: i32 element operations", "[model][reduce]") {
    CHECK(reduce_i32(ReduceOp::add, INT32_MAX, 1) == INT32_MIN);  // wraps
    CHECK(reduce_i32(ReduceOp::add, -5, 3) == -2);
    CHECK(reduce_i32(ReduceOp::min, -5, 3) == -5);                // signed (.s32)
    CHECK(reduce_i32(ReduceOp::max, -5, 3) == 3);
    CHECK(reduce_i32(ReduceOp::and_, 0x0F0F, 0x00FF) == 0x000F);
    CHECK(reduce_i32(ReduceOp::or_, 0x0F00, 0x00F0) == 0x0FF0);
    CHECK(reduce_i32(ReduceOp::xor_, -1, 0x0F) == ~0x0F);
}

TEST_CASE("reduce: float element operations round to nearest even", "[model][reduce]") {
    CHECK(reduce_float(ReduceOp::add, DType::f32, 16777216.0f, 1.0f) == 16777216.0f);  // 2^24 + 1 ties to even
    CHECK(reduce_float(ReduceOp::add, DType::f32, 0.5f, 0.25f) == 0.75f);
    // bf16 keeps 8 significant bits: 256 + 1 = 257 ties to 256 (even), 258 + 1 = 259 ties to 260.
    CHECK(reduce_float(ReduceOp::add, DType::bf16, 256.0f, 1.0f) == 256.0f);
    CHECK(reduce_float(ReduceOp::add, DType::bf16, 258.0f, 1.0f) == 260.0f);
    CHECK(reduce_float(ReduceOp::add, DType::bf16, 1.0f, 1.0f) == 2.0f);
    // f16 keeps 11: 2048 + 1 ties to 2048, 2050 + 1 ties to 2052.
    CHECK(reduce_float(ReduceOp::add, DType::f16, 2048.0f, 1.0f) == 2048.0f);
    CHECK(reduce_float(ReduceOp::add, DType::f16, 2050.0f, 1.0f) == 2052.0f);
    CHECK(reduce_float(ReduceOp::min, DType::bf16, -3.0f, 2.0f) == -3.0f);
    CHECK(reduce_float(ReduceOp::max, DType::f16, -3.0f, 2.0f) == 2.0f);
    // -0 is below +0 for min/max; a NaN operand yields the other one.
    CHECK(std::signbit(reduce_float(ReduceOp::min, DType::f16, 0.0f, -0.0f)));
    CHECK(!std::signbit(reduce_float(ReduceOp::max, DType::bf16, -0.0f, 0.0f)));
    CHECK(reduce_float(ReduceOp::min, DType::bf16, std::nanf(""), 5.0f) == 5.0f);
    // Combinations PTX lacks never load; the model refuses them too.
    CHECK_THROWS(ElementReduce(ReduceOp::min, DType::f32));
    CHECK_THROWS(ElementReduce(ReduceOp::inc, DType::i32));
}

TEST_CASE("reduce: bulk reductions through the TMA engine", "[model][reduce]") {
    SECTION("i32 add wraps in global memory") {
        const RunResult r = run_text(kWrap);
        REQUIRE(r.outcome == Outcome::ok);
        for (int64_t e = 0; e < 64; ++e)
            REQUIRE(load_element_int(image(r, "acc").bytes.data(), DType::i32, e) == INT32_MIN);
    }
    SECTION("catalog: f32 add") {
        const RunResult r = run_text(read_file("scenarios/catalog/reduce/bulk_add_f32.yaml"));
        REQUIRE(r.outcome == Outcome::ok);
        const uint8_t* acc = image(r, "acc").bytes.data();
        CHECK(load_element_float(acc, DType::f32, 127) == 127.0f);   // before the range
        CHECK(load_element_float(acc, DType::f32, 128) == 128.25f);
        CHECK(load_element_float(acc, DType::f32, 383) == 383.25f);
        CHECK(load_element_float(acc, DType::f32, 384) == 384.0f);   // after it
    }
    SECTION("catalog: i32 min and max are signed") {
        const RunResult r = run_text(read_file("scenarios/catalog/reduce/bulk_min_max_i32.yaml"));
        REQUIRE(r.outcome == Outcome::ok);
        const uint8_t* acc = image(r, "acc").bytes.data();
        for (int64_t e = 0; e < 256; ++e) REQUIRE(load_element_int(acc, DType::i32, e) == std::min(e, 100 - e));
        for (int64_t e = 256; e < 512; ++e)
            REQUIRE(load_element_int(acc, DType::i32, e) == std::max(e, 100 - (e - 256)));
    }
    SECTION("catalog: bf16 add rounds to nearest even") {
        const RunResult r = run_text(read_file("scenarios/catalog/reduce/bulk_add_bf16.yaml"));
        REQUIRE(r.outcome == Outcome::ok);
        CHECK(load_element_float(image(r, "acc").bytes.data(), DType::bf16, 0) == 256.0f);
        CHECK(load_element_float(image(r, "acc").bytes.data(), DType::bf16, 127) == 256.0f);
        CHECK(load_element_float(image(r, "ones").bytes.data(), DType::bf16, 5) == 2.0f);
    }
}

TEST_CASE("reduce: tensor reduce follows the box and skips out-of-bounds elements", "[model][reduce]") {
    const RunResult r = run_text(read_file("scenarios/catalog/reduce/tma_add_2d_f32.yaml"));
    REQUIRE(r.outcome == Outcome::ok);
    const uint8_t* c = image(r, "C").bytes.data();
    auto at = [&](int row, int col) { return load_element_float(c, DType::f32, row * 96 + col); };
    CHECK(at(31, 64) == 1.0f);                 // above the box
    CHECK(at(32, 63) == 1.0f);                 // left of it
    CHECK(at(32, 64) == 1.0f + 0);             // tile element 0
    CHECK(at(32, 65) == 1.0f + 1);
    CHECK(at(39, 95) == 1.0f + (7 * 64 + 31)); // the last in-bounds element
}

TEST_CASE("reduce: faults and races like a store", "[model][reduce]") {
    SECTION("a tensor reduce at a negative coordinate traps") {
        std::string t = read_file("scenarios/catalog/reduce/tma_add_2d_f32.yaml");
        t.replace(t.find("coords: [32, 64]"), 16, "coords: [-8, 64]");
        const RunResult r = run_text(t);
        REQUIRE(r.outcome == Outcome::fault);
        CHECK(r.diagnostics.front().rule == "tma.negative_store_coords");
        CHECK(r.diagnostics.front().message.find("tensor reduce of tile") != std::string::npos);
    }
    SECTION("reading the destination after only wait_group_read races") {
        const RunResult r = run_text(wrap_with("  - {op: bulk.wait_group, n: 0, by: elected, label: wait}\n",
                                               "  - {op: bulk.wait_group_read, n: 0, by: elected}\n"
                                               "  - {op: global.load, global: acc, index: 0, by: elected, label: peek}\n"));
        REQUIRE(r.outcome == Outcome::hazard);
        CHECK(r.diagnostics.front().rule == "race.global_after_read_only");
    }
    SECTION("the group wait covers the global result") {
        const RunResult r = run_text(wrap_with("label: wait}\n", "label: wait}\n"
                                               "  - {op: global.load, global: acc, index: 0, by: elected}\n"));
        CHECK(r.outcome == Outcome::ok);
    }
}

}  // namespace test_reduce_model
