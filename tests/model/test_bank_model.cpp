// BankModel: wavefronts of one warp-wide shared-memory access (semantics.md E30).
#include <catch2/catch.hpp>

#include "model/state/bank_model.h"
#include "model/copy/swizzle_address.h"

using tmasim::Swizzle;
using tmasim::model::BankCost;
using tmasim::model::BankModel;

namespace {
// 32 lanes, lane l at byte address f(l).
template <typename F>
BankCost warp(int width, F address) {
    std::vector<BankModel::LaneAccess> a;
    for (int l = 0; l < 32; ++l) a.push_back({l, address(l)});
    return BankModel::cost(a, width);
}
}  // namespace

TEST_CASE("bank model: 4-byte loads with a word stride of k need gcd-limited wavefronts", "[model][banks]") {
    const std::vector<std::pair<int, int>> stride_wavefronts = {{1, 1}, {2, 2}, {4, 4}, {8, 8}, {16, 16}, {32, 32}, {33, 1}};
    for (auto [stride, want] : stride_wavefronts) {
        INFO("stride " << stride);
        const BankCost c = warp(4, [&](int l) { return int64_t{4} * stride * l; });
        CHECK(c.wavefronts == want);
        CHECK(c.conflict_ways == want);
    }
}

TEST_CASE("bank model: identical words broadcast", "[model][banks]") {
    CHECK(warp(4, [](int) { return int64_t{64}; }).wavefronts == 1);
    // Two distinct words in one bank (0 and 128), each read by half the warp: 2-way.
    CHECK(warp(4, [](int l) { return int64_t{l % 2 == 0 ? 0 : 128}; }).wavefronts == 2);
    // Bytes of one word: one wavefront.
    CHECK(warp(1, [](int l) { return int64_t{l % 4}; }).wavefronts == 1);
}

TEST_CASE("bank model: 8- and 16-byte accesses go per half- and quarter-warp", "[model][banks]") {
    // Contiguous: 256 B and 512 B need 2 and 4 wavefronts, none of them conflicts.
    BankCost c8 = warp(8, [](int l) { return int64_t{8} * l; });
    CHECK(c8.wavefronts == 2);
    CHECK(c8.conflict_ways == 1);
    BankCost c16 = warp(16, [](int l) { return int64_t{16} * l; });
    CHECK(c16.wavefronts == 4);
    CHECK(c16.conflict_ways == 1);
    // 16-byte accesses with a 32-byte stride: each quarter-warp spans 256 B, 2-way.
    CHECK(warp(16, [](int l) { return int64_t{32} * l; }).conflict_ways == 2);
    CHECK(BankModel::lanes_per_phase(4) == 32);
    CHECK(BankModel::lanes_per_phase(8) == 16);
    CHECK(BankModel::lanes_per_phase(16) == 8);
}

TEST_CASE("bank model: a 16-byte column over 8 rows of 128 B, unswizzled vs 128B swizzle", "[model][banks]") {
    // One quarter-warp (8 lanes): lane r reads chunk 0 of row r (the ldmatrix pattern).
    std::vector<BankModel::LaneAccess> linear, swizzled;
    for (int r = 0; r < 8; ++r) {
        const int64_t logical = r * 128;
        linear.push_back({r, logical});
        swizzled.push_back({r, tmasim::model::swizzled_address(Swizzle::b128, logical)});
    }
    CHECK(BankModel::cost(linear, 16).conflict_ways == 8);  // semantics.md E30: 8-way
    CHECK(BankModel::cost(linear, 16).wavefronts == 8);
    CHECK(BankModel::cost(swizzled, 16).conflict_ways == 1);
    CHECK(BankModel::cost(swizzled, 16).wavefronts == 1);
    // 64-byte and 32-byte rows: 4-way and 2-way unswizzled (E30).
    std::vector<BankModel::LaneAccess> rows64, rows32;
    for (int r = 0; r < 8; ++r) {
        rows64.push_back({r, int64_t{64} * r});
        rows32.push_back({r, int64_t{32} * r});
    }
    CHECK(BankModel::cost(rows64, 16).conflict_ways == 4);
    CHECK(BankModel::cost(rows32, 16).conflict_ways == 2);
}

TEST_CASE("bank conflicts count the wavefronts beyond one per phase, as Nsight Compute does", "[model][bank]") {
    using tmasim::model::BankModel;
    std::vector<BankModel::LaneAccess> column, linear;
    // 16-byte loads: 32 lanes read one 16-byte column of 32 rows of 128 bytes (8-way per
    // quarter-warp phase), then 512 contiguous bytes (conflict-free).
    for (int lane = 0; lane < 32; ++lane) {
        column.push_back({lane, int64_t(lane) * 128});
        linear.push_back({lane, int64_t(lane) * 16});
    }
    const auto c = BankModel::cost(column, 16);
    CHECK(c.wavefronts == 32);
    CHECK(c.ideal_wavefronts == 4);
    CHECK(c.conflicts() == 28);
    const auto l = BankModel::cost(linear, 16);
    CHECK(l.wavefronts == 4);
    CHECK(l.conflicts() == 0);
}
