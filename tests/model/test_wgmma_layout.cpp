// wgmma operand layouts and the accumulator fragment, checked against formulas written
// here from their sources: PTX 9.7.15.5.1's canonical K-major layouts (in units of
// T = 8 16-bit elements) composed with semantics.md E28's swizzle, and PTX's D fragment
// figure for m64nNk16.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <vector>

#include "model/copy/wgmma_layout.h"

using namespace tmasim;
using namespace tmasim::model;

namespace {

// semantics.md E28: the 16-byte chunk (address bits 4-6) XORed with the 128-byte line
// (bits 7-9) masked to 1 / 3 / 7 for the 32B / 64B / 128B modes.
int64_t e28_swizzle(int swizzle_bytes, int64_t addr) {
    const int64_t chunk = (addr >> 4) & 7, line = (addr >> 7) & 7;
    const int64_t mask = swizzle_bytes / 16 - 1;
    return (addr & ~int64_t{0x70}) | ((chunk ^ (line & mask)) << 4);
}

// PTX canonical K-major layouts, in 16-bit elements (T = 8), row r = r0 + 8 r1, column
// c = c0 + 8 c1:
//   swizzled: ((8,m),(T,2k)) : ((s T, SBO), (1, T)) with s = swizzle bytes / 16 and a
//             dense tile's SBO = 8 rows of s T elements; then the swizzle on byte addresses;
//   none:     ((8,m),(T,2k)) : ((T, SBO), (1, LBO)) with LBO = 64 elements (one core
//             matrix, the next along K) and SBO = K/8 core matrices (the next 8 rows).
int64_t canonical_bytes(int swizzle_bytes, int64_t k_total, int64_t r, int64_t c) {
    const int64_t r0 = r % 8, r1 = r / 8, c0 = c % 8, c1 = c / 8;
    if (swizzle_bytes == 0) {
        const int64_t lbo = 64, sbo = k_total / 8 * 64;
        return 2 * (r0 * 8 + r1 * sbo + c0 + c1 * lbo);
    }
    const int64_t s = swizzle_bytes / 16, sbo = 8 * s * 8;
    return e28_swizzle(swizzle_bytes, 2 * (r0 * s * 8 + r1 * sbo + c0 + c1 * 8));
}

Swizzle mode_of(int bytes) {
    switch (bytes) {
        case 32: return Swizzle::b32;
        case 64: return Swizzle::b64;
        case 128: return Swizzle::b128;
        default: return Swizzle::none;
    }
}

}  // namespace

TEST_CASE("wgmma operand offsets follow PTX's canonical K-major layouts and E28's swizzle", "[model][wgmma]") {
    struct Case {
        int swizzle_bytes;
        int64_t k_total;
    };
    // Swizzled rows are exactly one swizzle row (K = bytes / 2); none takes any K % 8 == 0.
    for (const Case c : {Case{32, 16}, Case{64, 32}, Case{128, 64}, Case{0, 16}, Case{0, 32}, Case{0, 64}}) {
        for (const int64_t rows : {int64_t{8}, int64_t{64}, int64_t{256}}) {
            INFO("swizzle " << c.swizzle_bytes << " B, K " << c.k_total << ", rows " << rows);
            std::set<int64_t> seen;
            for (int64_t r = 0; r < rows; ++r)
                for (int64_t k = 0; k < c.k_total; ++k) {
                    const int64_t got = wgmma_operand_offset(mode_of(c.swizzle_bytes), c.k_total, r, k);
                    REQUIRE(got == canonical_bytes(c.swizzle_bytes, c.k_total, r, k));
                    seen.insert(got);
                }
            // A bijection onto the buffer's bytes (every other byte: 2-byte elements).
            CHECK(static_cast<int64_t>(seen.size()) == rows * c.k_total);
            CHECK(*seen.begin() == 0);
            CHECK(*seen.rbegin() == rows * c.k_total * 2 - 2);
        }
    }
}

TEST_CASE("wgmma swizzled operands sit where a TMA load with that swizzle puts them", "[model][wgmma]") {
    // A TMA box of rows x (bytes/2) elements lands element (r, k) at E28(r * bytes + 2k).
    CHECK(wgmma_operand_offset(Swizzle::b32, 16, 1, 0) == 32 + 0);     // line 0: no XOR
    CHECK(wgmma_operand_offset(Swizzle::b32, 16, 4, 0) == 128 + 16);   // line 1: chunk 0 -> 1
    CHECK(wgmma_operand_offset(Swizzle::b64, 32, 2, 8) == 128 + 0);    // line 1, chunk 1 -> 0
    CHECK(wgmma_operand_offset(Swizzle::b128, 64, 3, 0) == 384 + 48);  // line 3, chunk 0 -> 3
    CHECK(wgmma_operand_offset(Swizzle::b128, 64, 9, 17) == 1152 + 16 * (2 ^ 1) + 2);
    // none: core matrix (1, 1) of a K = 16 tile is the fourth 128-byte block.
    CHECK(wgmma_operand_offset(Swizzle::none, 16, 8, 8) == 3 * 128);
    CHECK(wgmma_operand_offset(Swizzle::none, 16, 9, 13) == 3 * 128 + 16 + 10);
}

TEST_CASE("wgmma slices of 8 K elements stay contiguous 16-byte chunks", "[model][wgmma]") {
    // Descriptors address 16-byte units; each 8-element run along K must be one chunk.
    for (const Swizzle m : {Swizzle::none, Swizzle::b32, Swizzle::b64, Swizzle::b128}) {
        const int64_t k_total = m == Swizzle::none ? 32 : swizzle_bytes(m) / 2;
        for (int64_t r = 0; r < 64; ++r)
            for (int64_t k = 0; k < k_total; k += 8) {
                const int64_t first = wgmma_operand_offset(m, k_total, r, k);
                CHECK(first % 16 == 0);
                for (int64_t j = 1; j < 8; ++j) CHECK(wgmma_operand_offset(m, k_total, r, k + j) == first + 2 * j);
            }
    }
}

TEST_CASE("the m64nNk16 accumulator fragment covers D once, as in PTX's figure", "[model][wgmma]") {
    // Spot checks read off the figure: thread 0 holds d0,d1 at row 0, columns 0,1; d2,d3 at
    // row 8; d4,d5 at columns 8,9. Thread 1 starts at column 2, thread 4 at row 1; warp w
    // owns rows 16w..16w+15.
    CHECK(wgmma_fragment_coord(0, 0, 0) == std::make_pair(0, 0));
    CHECK(wgmma_fragment_coord(0, 0, 1) == std::make_pair(0, 1));
    CHECK(wgmma_fragment_coord(0, 0, 2) == std::make_pair(8, 0));
    CHECK(wgmma_fragment_coord(0, 0, 3) == std::make_pair(8, 1));
    CHECK(wgmma_fragment_coord(0, 0, 4) == std::make_pair(0, 8));
    CHECK(wgmma_fragment_coord(0, 1, 0) == std::make_pair(0, 2));
    CHECK(wgmma_fragment_coord(0, 4, 1) == std::make_pair(1, 1));
    CHECK(wgmma_fragment_coord(2, 0, 0) == std::make_pair(32, 0));
    CHECK(wgmma_fragment_coord(3, 31, 3) == std::make_pair(63, 7));
    for (const int n : {8, 16, 24, 128, 256}) {
        INFO("N " << n);
        std::vector<int> hits(64 * n, 0);
        for (int w = 0; w < 4; ++w)
            for (int lane = 0; lane < 32; ++lane)
                for (int i = 0; i < n / 2; ++i) {
                    const auto [row, col] = wgmma_fragment_coord(w, lane, i);
                    REQUIRE(row >= 16 * w);
                    REQUIRE(row < 16 * w + 16);
                    REQUIRE(col >= 0);
                    REQUIRE(col < n);
                    ++hits[row * n + col];
                }
        CHECK(std::count(hits.begin(), hits.end(), 1) == 64 * n);
    }
}
