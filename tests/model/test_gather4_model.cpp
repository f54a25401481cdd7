// tile::gather4 / tile::scatter4 on the model (semantics.md A6, G34-G35): which global
// elements the four rows cover, zero and NaN fill on gather, skipping on scatter, the
// swizzled tile layout, the barrier's complete_tx of 4 x width bytes, and the traps.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "model/copy/gather4_copy.h"
#include "model/run/run_model.h"
#include "model/copy/swizzle_address.h"
#include "scenarios/loader.h"
#include "scenarios/values.h"

using namespace tmasim;
using tmasim::model::Gather4Copy;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_gather4_model {

namespace {

// X is 64 x 64 f32 iota; the map's box is one row of 16 elements (64 bytes).
const char* kGather = R"(scenario: g4
arch: sm_100
launch: {grid: [1], block: 64}
global:
  X: {type: f32, shape: [64, 64], init: iota}
tensormaps:
  rowmap: {tensor: X, box: [1, 16], swizzle: none, oob_fill: zero}
shared:
  tile: {type: f32, shape: [4, 16], align: 128}
barriers:
  bar: {}
program:
  - {op: mbarrier.init, barrier: bar, count: 1, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: sync}
  - {op: mbarrier.arrive_expect_tx, barrier: bar, bytes: 256, by: elected}
  - {op: tma.gather4, map: rowmap, rows: [2, -1, 63, 64], col: 52, dst: tile, barrier: bar, by: elected, label: gather}
  - {op: mbarrier.wait, barrier: bar, parity: 0, label: wait}
expect: {outcome: ok}
)";

const char* kScatter = R"(scenario: s4
arch: sm_100
launch: {grid: [1], block: 64}
global:
  X: {type: i32, shape: [64, 64], init: {fill: -1}}
tensormaps:
  rowmap: {tensor: X, box: [1, 16], swizzle: none, oob_fill: zero}
shared:
  tile: {type: i32, shape: [4, 16], align: 128}
program:
  - {op: compute, buffer: tile, fn: "idx"}
  - {op: fence.proxy.async}
  - {op: sync}
  - {op: tma.scatter4, map: rowmap, rows: [5, 1000000, 0, 63], col: 56, src: tile, by: elected, label: scatter}
  - {op: bulk.commit_group, by: elected}
  - {op: bulk.wait_group, n: 0, by: elected}
expect: {outcome: ok}
)";

std::string edit(const char* base, const std::string& from, const std::string& to) {
    std::string s = base;
    const size_t at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
}

RunResult run_text(const std::string& text) { return run_model(load_scenario_text(text, "g4_test.yaml")); }

const MemoryImage& image(const RunResult& r, const std::string& name) {
    for (const auto& m : r.memory)
        if (m.name == name) return m;
    FAIL("no memory image " << name);
    return r.memory.front();
}

std::string rules(const RunResult& r) {
    std::string s;
    for (const auto& d : r.diagnostics) s += d.rule + ": " + d.message + "\n";
    return s;
}

}  // namespace

TEST_CASE("gather4: rows and columns out of bounds read as zeros", "[model][gather4]") {
    const RunResult r = run_text(kGather);
    INFO(rules(r));
    REQUIRE(r.outcome == Outcome::ok);
    const uint8_t* t = image(r, "tile").bytes.data();
    auto at = [&](int row, int j) { return load_element_float(t, DType::f32, row * 16 + j); };
    // Row 2, columns 52..63 in bounds, 64..67 past the end.
    CHECK(at(0, 0) == 2 * 64 + 52);
    CHECK(at(0, 11) == 2 * 64 + 63);
    CHECK(at(0, 12) == 0.0f);
    for (int j = 0; j < 16; ++j) CHECK(at(1, j) == 0.0f);  // row -1
    CHECK(at(2, 0) == 63 * 64 + 52);
    for (int j = 0; j < 16; ++j) CHECK(at(3, j) == 0.0f);  // row 64
}

TEST_CASE("gather4: NaN fill and a negative column", "[model][gather4]") {
    const RunResult r = run_text(edit(edit(kGather, "oob_fill: zero", "oob_fill: nan").c_str(), "col: 52", "col: -4"));
    INFO(rules(r));
    REQUIRE(r.outcome == Outcome::ok);
    const uint8_t* t = image(r, "tile").bytes.data();
    auto at = [&](int row, int j) { return load_element_float(t, DType::f32, row * 16 + j); };
    for (int j = 0; j < 4; ++j) CHECK(std::isnan(at(0, j)));  // columns -4..-1
    CHECK(at(0, 4) == 2 * 64 + 0);
    CHECK(std::isnan(at(1, 7)));
}

TEST_CASE("gather4: the barrier is credited 4 x width bytes, OOB rows included (A6)", "[model][gather4]") {
    const RunResult more = run_text(edit(kGather, "bytes: 256", "bytes: 272"));
    REQUIRE(more.outcome == Outcome::hang);
    CHECK(more.diagnostics.front().rule == "mbarrier.tx_mismatch");
    const RunResult one_row = run_text(edit(kGather, "bytes: 256", "bytes: 64"));
    CHECK(one_row.outcome != Outcome::ok);  // the extra rows spill into the next phase
}

TEST_CASE("gather4: the tile is swizzled like a tiled box", "[model][gather4]") {
    GlobalTensor x;
    x.name = "X";
    x.type = DType::bf16;
    x.shape = {64, 64};
    TensorMap m;
    m.name = "rowmap";
    m.tensor = "X";
    m.box = {1, 32};  // 64-byte rows
    m.swizzle = Swizzle::b64;
    const Gather4Copy copy(x, m, {0, 1, 2, 3}, 0);
    REQUIRE(copy.tile_bytes() == 256);
    std::vector<uint8_t> tile(256), smem(1024, 0);
    for (int b = 0; b < 256; ++b) tile[b] = static_cast<uint8_t>(b);
    copy.write_smem(tile, smem, 512);
    for (int b = 0; b < 256; ++b) REQUIRE(smem[model::swizzled_address(Swizzle::b64, 512 + b)] == b);
    CHECK(copy.read_smem(smem, 512) == tile);
    // Row 2 (tile bytes 128..191) is in 128-byte line 5: 64B mode swaps its 16-byte chunks
    // 0 and 1 (c ^= line & 3), so the row is not where an unswizzled copy would put it.
    CHECK(smem[512 + 128] == 128 + 16);
    CHECK(smem[512 + 128 + 16] == 128);
    CHECK(copy.smem_span(512) == std::make_pair<int64_t, int64_t>(512, 767));
}

TEST_CASE("scatter4: out-of-bounds rows and columns are skipped", "[model][gather4]") {
    const RunResult r = run_text(kScatter);
    INFO(rules(r));
    REQUIRE(r.outcome == Outcome::ok);
    const uint8_t* x = image(r, "X").bytes.data();
    auto at = [&](int row, int col) { return load_element_int(x, DType::i32, row * 64 + col); };
    CHECK(at(5, 55) == -1);
    CHECK(at(5, 56) == 0);        // tile row 0, element 0
    CHECK(at(5, 63) == 7);        // columns 64..71 skipped
    CHECK(at(0, 56) == 2 * 16);   // tile row 2
    CHECK(at(63, 63) == 3 * 16 + 7);
    CHECK(at(6, 56) == -1);
}

TEST_CASE("gather4/scatter4: traps and races", "[model][gather4]") {
    SECTION("a scatter to a negative row traps") {
        const RunResult r = run_text(edit(kScatter, "rows: [5, 1000000, 0, 63]", "rows: [5, 1000000, -3, 63]"));
        REQUIRE(r.outcome == Outcome::fault);
        CHECK(r.diagnostics.front().rule == "tma.scatter4_negative_row");
        CHECK(r.diagnostics.front().message.find("row -3 (rows[2])") != std::string::npos);
        CHECK(load_element_int(image(r, "X").bytes.data(), DType::i32, 5 * 64 + 56) == -1);  // nothing written
    }
    SECTION("a scatter at a negative column traps like a tensor store") {
        const RunResult r = run_text(edit(kScatter, "col: 56", "col: -8"));
        REQUIRE(r.outcome == Outcome::fault);
        CHECK(r.diagnostics.front().rule == "tma.negative_store_coords");
    }
    SECTION("a column that is not 16-byte aligned traps on gather and scatter") {
        const RunResult g = run_text(edit(kGather, "col: 52", "col: 2"));  // 8 bytes
        REQUIRE(g.outcome == Outcome::fault);
        CHECK(g.diagnostics.front().rule == "tma.gather4_col_alignment");
        const RunResult s = run_text(edit(kScatter, "col: 56", "col: 58"));
        REQUIRE(s.outcome == Outcome::fault);
        CHECK(s.diagnostics.front().rule == "tma.gather4_col_alignment");
        CHECK(run_text(edit(kGather, "col: 52", "col: 4")).outcome == Outcome::ok);  // 16 bytes
    }
    SECTION("the scatter source needs fence.proxy.async") {
        const RunResult r = run_text(edit(kScatter, "  - {op: fence.proxy.async}\n", ""));
        REQUIRE(r.outcome == Outcome::hazard);
        CHECK(r.diagnostics.front().rule == "proxy.generic_to_async");
    }
    SECTION("reading the gathered tile before the wait races") {
        const RunResult r = run_text(edit(kGather, "  - {op: mbarrier.wait",
                                          "  - {op: shared.load, buffer: tile, index: tid, label: early}\n"
                                          "  - {op: mbarrier.wait"));
        REQUIRE(r.outcome == Outcome::hazard);
        CHECK(r.diagnostics.front().rule == "race.read_before_complete");
    }
}

}  // namespace test_gather4_model
