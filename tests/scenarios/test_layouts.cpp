// Gluon layouts (scenarios/linear_layout.h): the element-ownership maps tmasim prints
// against the maps printed in Gluon's layouts tutorial (02-layouts), the equivalence of a
// blocked layout with its slice and linear forms, and the vector plan of the tutorial's
// 1-D memcpy (its LDG/STG table).
#include <catch2/catch.hpp>

#include <sstream>

#include "scenarios/layout_access.h"
#include "scenarios/linear_layout.h"
#include "scenarios/shared_layouts.h"

using namespace tmasim;

namespace {

RegLayoutSpec blocked(std::vector<int64_t> spt, std::vector<int64_t> tpw, std::vector<int64_t> wpc,
                      std::vector<int64_t> order) {
    RegLayoutSpec s;
    s.kind = RegLayoutSpec::Kind::blocked;
    s.blocked = {spt, tpw, wpc, order};
    check_blocked(s.blocked);
    return s;
}

RegLayoutSpec slice(int64_t dim, const RegLayoutSpec& parent) {
    RegLayoutSpec s;
    s.kind = RegLayoutSpec::Kind::slice;
    s.slice_dim = dim;
    s.parent = std::make_shared<RegLayoutSpec>(parent);
    return s;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

// The comma-separated cells of one printed row, brackets dropped.
std::vector<std::string> cells_of(std::string row) {
    for (char& c : row)
        if (c == '[' || c == ']') c = ' ';
    std::vector<std::string> out;
    std::stringstream in(row);
    for (std::string cell; std::getline(in, cell, ',');) {
        const size_t a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
        if (a != std::string::npos) out.push_back(cell.substr(a, b - a + 1));
    }
    return out;
}

// The tutorial's layout: BlockedLayout([2, 4], [16, 2], [W0, W1], [1, 0]).
const RegLayoutSpec kTutorialOneWarp = blocked({2, 4}, {16, 2}, {1, 1}, {1, 0});
const RegLayoutSpec kTutorial = blocked({2, 4}, {16, 2}, {2, 2}, {1, 0});

}  // namespace

TEST_CASE("layouts: a thread's 2x4 tile is numbered along order", "[scenarios][layouts]") {
    // Tutorial: order [1, 0] gives [[T:0, T:1, T:2, T:3], [T:4, T:5, T:6, T:7]];
    // order [0, 1] gives [[T:0, T:2, T:4, T:6], [T:1, T:3, T:5, T:7]].
    const LinearLayout row_major = to_linear(kTutorialOneWarp, {32, 8});
    const LinearLayout col_major = to_linear(blocked({2, 4}, {16, 2}, {1, 1}, {0, 1}), {32, 8});
    const std::vector<Coords> rm = {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 1}, {1, 2}, {1, 3}};
    const std::vector<Coords> cm = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2}, {0, 3}, {1, 3}};
    REQUIRE(row_major.num_regs() == 8);
    for (int64_t r = 0; r < 8; ++r) {
        INFO("register " << r);
        CHECK(row_major.element(r, 0, 0) == rm[size_t(r)]);
        CHECK(col_major.element(r, 0, 0) == cm[size_t(r)]);
    }
}

TEST_CASE("layouts: the warp tile map equals the tutorial's", "[scenarios][layouts]") {
    const std::vector<std::string> got = lines_of(ownership_map(to_linear(kTutorialOneWarp, {32, 8})));
    REQUIRE(got.size() == 32);
    // The tutorial prints the first four and the last four rows.
    CHECK(got[0] == "[[ T0:0,  T0:1,  T0:2,  T0:3,  T1:0,  T1:1,  T1:2,  T1:3],");
    CHECK(got[1] == " [ T0:4,  T0:5,  T0:6,  T0:7,  T1:4,  T1:5,  T1:6,  T1:7],");
    CHECK(got[2] == " [ T2:0,  T2:1,  T2:2,  T2:3,  T3:0,  T3:1,  T3:2,  T3:3],");
    CHECK(got[3] == " [ T2:4,  T2:5,  T2:6,  T2:7,  T3:4,  T3:5,  T3:6,  T3:7],");
    CHECK(got[28] == " [T28:0, T28:1, T28:2, T28:3, T29:0, T29:1, T29:2, T29:3],");
    CHECK(got[29] == " [T28:4, T28:5, T28:6, T28:7, T29:4, T29:5, T29:6, T29:7],");
    CHECK(got[30] == " [T30:0, T30:1, T30:2, T30:3, T31:0, T31:1, T31:2, T31:3],");
    CHECK(got[31] == " [T30:4, T30:5, T30:6, T30:7, T31:4, T31:5, T31:6, T31:7]]");
}

TEST_CASE("layouts: a 32x8 tensor in the 4-warp layout broadcasts to every warp", "[scenarios][layouts]") {
    const LinearLayout l = to_linear(kTutorial, {32, 8});
    // "it will be stored as 64 * 16 = 1024 physical registers": 8 per thread.
    CHECK(l.num_regs() * l.num_lanes() * l.num_warps() == 1024);
    const std::vector<std::string> rows = lines_of(ownership_map(l));
    REQUIRE(rows.size() == 32);
    // The tutorial's rows 0, 1, 30, 31, first and last cells.
    const std::vector<std::pair<size_t, std::pair<std::string, std::string>>> want = {
        {0, {"T0:0| T32:0| T64:0| T96:0", "T1:3| T33:3| T65:3| T97:3"}},
        {1, {"T0:4| T32:4| T64:4| T96:4", "T1:7| T33:7| T65:7| T97:7"}},
        {30, {"T30:0| T62:0| T94:0|T126:0", "T31:3| T63:3| T95:3|T127:3"}},
        {31, {"T30:4| T62:4| T94:4|T126:4", "T31:7| T63:7| T95:7|T127:7"}},
    };
    for (const auto& [row, cells] : want) {
        INFO(rows[row]);
        const std::vector<std::string> c = cells_of(rows[row]);
        REQUIRE(c.size() == 8);
        CHECK(c.front() == cells.first);
        CHECK(c.back() == cells.second);
    }
}

TEST_CASE("layouts: a 128x128 tensor tiles the block [2, 8] times in registers along order", "[scenarios][layouts]") {
    const LinearLayout l = to_linear(kTutorial, {128, 128});
    // The tutorial divides the [64, 16] block into the tensor to get a [2, 8] tiling, then
    // draws 2x4 blocks and writes "8 * 8 = 64" registers: 2 x 8 blocks of 8 registers are
    // 128, which is what the layout gives.
    CHECK(l.num_regs() == 2 * 8 * 8);
    // Blocks run along the columns first (order [1, 0]); block 8 starts the second row.
    CHECK(l.element(8, 0, 0) == Coords{0, 16});
    CHECK(l.element(16, 0, 0) == Coords{0, 32});
    CHECK(l.element(8 * 7, 0, 0) == Coords{0, 112});
    CHECK(l.element(8 * 8, 0, 0) == Coords{64, 0});
    CHECK(l.element(8 * 15 + 7, 0, 0) == Coords{65, 115});
}

TEST_CASE("layouts: the slice along dim 1 equals the tutorial's collapsed map", "[scenarios][layouts]") {
    const std::vector<std::string> got = lines_of(ownership_map(to_linear(slice(1, kTutorialOneWarp), {32})));
    REQUIRE(got.size() == 32);
    CHECK(got[0] == "[ T0:0| T1:0,");
    CHECK(got[1] == "  T0:1| T1:1,");
    CHECK(got[2] == "  T2:0| T3:0,");
    CHECK(got[3] == "  T2:1| T3:1,");
    CHECK(got[28] == " T28:0|T29:0,");
    CHECK(got[29] == " T28:1|T29:1,");
    CHECK(got[30] == " T30:0|T31:0,");
    CHECK(got[31] == " T30:1|T31:1]");
}

TEST_CASE("layouts: BlockedLayout([1],[32],[4],[0]) equals its slice form and its linear layout", "[scenarios][layouts]") {
    const LinearLayout b = to_linear(blocked({1}, {32}, {4}, {0}), {128});
    const LinearLayout s = to_linear(slice(1, blocked({1, 1}, {32, 1}, {4, 1}, {1, 0})), {128});
    RegLayoutSpec lin;
    lin.kind = RegLayoutSpec::Kind::linear;
    lin.linear.shape = {128};
    lin.linear.lane = {{1}, {2}, {4}, {8}, {16}};
    lin.linear.warp = {{32}, {64}};
    const LinearLayout l = to_linear(lin, {128});
    CHECK(b == s);
    CHECK(b == l);
    CHECK(linear_text(b) == "reg_bases=[], lane_bases=[[1], [2], [4], [8], [16]], warp_bases=[[32], [64]], shape=[128]");
    // A different layout is not equal: the transposed parent's slice along dim 0.
    CHECK(to_linear(slice(0, blocked({1, 1}, {1, 32}, {1, 4}, {1, 0})), {128}) == b);
    CHECK(to_linear(blocked({2}, {32}, {4}, {0}), {128}) != b);
}

TEST_CASE("layouts: the 1-D memcpy's vector widths follow the tutorial's LDG table", "[scenarios][layouts]") {
    // R: width of each LDG in bits, loads per 512-element block per thread, and the
    // sectors each warp instruction touches (f32, XBLOCK 2048, 4 warps).
    struct Row {
        int64_t r, width_bits, per_thread, sectors_per_request;
    };
    const std::vector<Row> rows = {{1, 32, 16, 4}, {2, 64, 8, 8}, {4, 128, 4, 16}, {8, 128, 4, 32}, {16, 128, 4, 32}};
    for (const Row& row : rows) {
        INFO("R=" << row.r);
        const LinearLayout l = to_linear(blocked({row.r}, {32}, {4}, {0}), {2048});
        const LayoutAccessPlan p = plan_layout_access(l, 4, [](const Coords& c) { return c[0]; });
        CHECK(p.vec_bytes * 8 == row.width_bits);
        CHECK(p.per_thread == row.per_thread);
        std::vector<int64_t> addrs;
        for (int64_t lane = 0; lane < 32; ++lane) addrs.push_back(l.element(0, lane, 0)[0] * 4);
        CHECK(count_sectors(addrs, p.vec_bytes).sectors == row.sectors_per_request);
        if (row.r >= 8) {
            // The tutorial's "stride 0x10": a thread's second vector is 16 bytes after its first.
            CHECK(l.element(p.vec, 0, 0)[0] * 4 - l.element(0, 0, 0)[0] * 4 == 16);
        }
    }
}

TEST_CASE("layouts: a transposed view is not coalesced, the fixed layout is", "[scenarios][layouts]") {
    // input.T of a [32768, 65536] f32 tensor: strides (1, 65536). The row layout reads
    // one element per row: 32 sectors per request; the fixed layout 4.
    const auto transposed = [](const Coords& c) { return c[0] * 1 + c[1] * 65536; };
    const LinearLayout rows = to_linear(blocked({1, 1}, {1, 32}, {1, 4}, {1, 0}), {1, 2048});
    const LinearLayout fixed = to_linear(blocked({1, 1}, {32, 1}, {4, 1}, {0, 1}), {2048, 1});
    for (const auto& [l, sectors] : {std::make_pair(rows, 32), std::make_pair(fixed, 4)}) {
        std::vector<int64_t> addrs;
        for (int64_t lane = 0; lane < 32; ++lane) addrs.push_back(transposed(l.element(0, lane, 0)) * 4);
        CHECK(count_sectors(addrs, 4).sectors == sectors);
    }
}

TEST_CASE("layouts: shared layouts place every tile element once", "[scenarios][layouts]") {
    SharedLayoutSpec swz;
    swz.vec = 4;
    swz.per_phase = 1;
    swz.max_phase = 8;
    swz.order = {1, 0};
    SharedLayoutSpec nv;
    nv.kind = SharedLayoutSpec::Kind::nvmma;
    nv.swizzle_bytes = 128;
    nv.element_bits = 16;
    for (const auto& [spec, esize] : {std::make_pair(swz, int64_t(4)), std::make_pair(nv, int64_t(2))}) {
        check_shared_layout(spec, {64, 128}, esize);
        std::vector<int64_t> offs = shared_offsets(spec, {64, 128}, esize);
        std::sort(offs.begin(), offs.end());
        for (size_t i = 0; i < offs.size(); ++i) REQUIRE(offs[i] == int64_t(i));
    }
    // Swizzled: row 1 moves its 4-element groups by phase 1: column 0 lands at 4.
    CHECK(shared_offset(swz, {64, 128}, 4, {1, 0}) == 128 + 4);
    CHECK(shared_offset(swz, {64, 128}, 4, {9, 5}) == 9 * 128 + ((1 ^ 1) * 4 + 1));
    // NVMMA 128B over f16: a row is 64 elements; the tile is two column blocks of 64 rows.
    CHECK(shared_offset(nv, {64, 128}, 2, {0, 64}) == 64 * 64);
    CHECK(shared_offset(nv, {64, 128}, 2, {1, 0}) == 64 + 8);  // chunk 0 ^ row 1
    SharedLayoutSpec wide = swz;
    wide.max_phase = 64;
    CHECK_THROWS_AS(check_shared_layout(wide, {64, 128}, 4), std::invalid_argument);
}

TEST_CASE("layouts: blocked layouts that cannot exist are refused", "[scenarios][layouts]") {
    CHECK_THROWS_WITH(blocked({1}, {16}, {4}, {0}), Catch::Contains("multiplies to 16"));
    CHECK_THROWS_WITH(blocked({3}, {32}, {4}, {0}), Catch::Contains("not a power of two"));
    CHECK_THROWS_WITH(blocked({1, 1}, {1, 32}, {1, 4}, {1, 1}), Catch::Contains("not a permutation"));
}
