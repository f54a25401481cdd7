// The kernel catalog's host references (kernel_references.h) checked against values worked out
// by hand, and against small CPU emulations of the kernels' data movement (the index arithmetic
// of each .cu, replayed thread by thread), so a reference that drifts from its kernel fails here.
#include <catch2/catch.hpp>

#include "catalog_support.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>

#include "kernel_references.h"
#include "scenarios/values.h"

namespace fs = std::filesystem;
using namespace tmasim;
using test::catalog;

namespace {

Scenario kernel(const std::string& name) { return catalog("kernels/" + name + ".yaml"); }

int32_t i32_at(const std::vector<uint8_t>& b, int64_t e) {
    int32_t v;
    std::memcpy(&v, &b[e * 4], 4);
    return v;
}
float f32_at(const std::vector<uint8_t>& b, int64_t e) {
    float v;
    std::memcpy(&v, &b[e * 4], 4);
    return v;
}
uint16_t u16_at(const std::vector<uint8_t>& b, int64_t e) {
    uint16_t v;
    std::memcpy(&v, &b[e * 2], 2);
    return v;
}
std::vector<uint8_t> initial(const Scenario& s, const std::string& name) { return initial_bytes(*s.find_global(name)); }

}  // namespace

TEST_CASE("kernel references: every correct kernel has one, every twin none", "[model][kernels]") {
    const fs::path root = fs::path(TMASIM_SOURCE_DIR) / "scenarios/catalog/kernels";
    int correct = 0, twins = 0;
    for (const auto& e : fs::directory_iterator(root)) {
        if (e.path().extension() != ".yaml") continue;
        const Scenario s = load_scenario_file(e.path().string());
        INFO(s.name);
        REQUIRE(s.is_kernel());
        if (s.expect.outcome == Outcome::ok) {
            ++correct;
            const auto ref = kernel_reference(s);
            CHECK_FALSE(ref.empty());
            for (const auto& [name, bytes] : ref) {
                const GlobalTensor* t = s.find_global(name);
                REQUIRE(t != nullptr);
                CHECK(static_cast<int64_t>(bytes.size()) == t->size_bytes());
                // Every reference changes its tensor: a kernel that wrote nothing would fail.
                CHECK(bytes != initial_bytes(*t));
            }
            for (const auto& [name, bound] : kernel_reference_ulp_bounds(s)) {
                CHECK(ref.count(name) == 1);
                CHECK(bound > 0);
            }
        } else {
            ++twins;
            CHECK_THROWS_AS(kernel_reference(s), std::out_of_range);
        }
    }
    CHECK(correct >= 12);
    CHECK(twins >= 10);
}

TEST_CASE("kernel references: ldgsts_pipeline equals a replay of its cp.async copies", "[model][kernels]") {
    const Scenario s = kernel("ldgsts_pipeline");
    const auto in = initial(s, "in");
    const auto out = kernel_reference(s).at("out");
    // Replay: block c, batch b at (b * grid + c) * 896; thread t copies 16 bytes at 4t, 8 at
    // 512 + 2t, 4 at 768 + t into the stage, then doubles exactly those ints.
    const int grid = 2, batches = 4, threads = 128;
    std::vector<int32_t> expect(7168, 0);
    for (int c = 0; c < grid; ++c)
        for (int b = 0; b < batches; ++b) {
            const int base = (b * grid + c) * 896;
            std::vector<int32_t> stage(896, 0);
            for (int t = 0; t < threads; ++t) {
                for (int i = 0; i < 4; ++i) stage[4 * t + i] = i32_at(in, base + 4 * t + i);
                for (int i = 0; i < 2; ++i) stage[512 + 2 * t + i] = i32_at(in, base + 512 + 2 * t + i);
                stage[768 + t] = i32_at(in, base + 768 + t);
            }
            for (int i = 0; i < 896; ++i) expect[base + i] = 2 * stage[i];
        }
    for (int e = 0; e < 7168; ++e) REQUIRE(i32_at(out, e) == expect[e]);
}

TEST_CASE("kernel references: the guide's read-modify-write kernels", "[model][kernels]") {
    {
        const auto data = kernel_reference(kernel("bulk_copy_1d")).at("data");  // iota, offset 1024
        CHECK(i32_at(data, 1023) == 1023);
        CHECK(i32_at(data, 1024) == 1025);
        CHECK(i32_at(data, 2047) == 2048);
    }
    {
        const auto a = kernel_reference(kernel("tma_2d_load_modify_store")).at("A");  // iota [64, 128], x 64, y 16
        CHECK(i32_at(a, 16 * 128 + 64) == 16 * 128 + 64);           // thread 0 adds 0
        CHECK(i32_at(a, 16 * 128 + 64 + 37) == 16 * 128 + 64 + 37 + 37);
        CHECK(i32_at(a, 16 * 128 + 63) == 16 * 128 + 63);           // left of the tile
        CHECK(i32_at(a, 17 * 128 + 64 + 37) == 17 * 128 + 64 + 37); // row 1 of the tile: untouched
    }
}

TEST_CASE("kernel references: the TMA pipelines cover every tile once", "[model][kernels]") {
    {
        const Scenario s = kernel("tma_prefetch_pipeline");
        const auto in = initial(s, "in");
        const auto out = kernel_reference(s).at("out");
        // Block c's tile b is rows 16 (b * 2 + c): the 2 blocks x 4 tiles cover rows 0..127 once.
        std::set<int> rows;
        for (int c = 0; c < 2; ++c)
            for (int b = 0; b < 4; ++b)
                for (int r = 0; r < 16; ++r) CHECK(rows.insert((b * 2 + c) * 16 + r).second);
        CHECK(rows.size() == 128);
        CHECK(i32_at(out, 77 * 64 + 5) == 2 * i32_at(in, 77 * 64 + 5) + 1);
    }
    {
        const Scenario s = kernel("tma_load_store_ring");
        const auto in = initial(s, "in");
        const auto out = kernel_reference(s).at("out");
        CHECK(i32_at(out, 0) == 3 * i32_at(in, 0) + 1);
        CHECK(i32_at(out, 127 * 64 + 63) == 3 * i32_at(in, 127 * 64 + 63) + 1);
    }
    {
        const Scenario s = kernel("warp_specialized_pc");
        const auto in = initial(s, "in");
        const auto out = kernel_reference(s).at("out");
        // Consumer thread c reads elements c + 64 i of each tile: 64 threads x 16 cover the 1024.
        std::set<int> seen;
        for (int c = 0; c < 64; ++c)
            for (int i = 0; i < 16; ++i) seen.insert(c + 64 * i);
        CHECK(seen.size() == 1024);
        for (int e : {0, 1023, 5000, 12287}) CHECK(f32_at(out, e) == 2.0f * f32_at(in, e) + 1.0f);
    }
}

TEST_CASE("kernel references: cluster kernels (multicast, st.async ring, DSMEM)", "[model][kernels]") {
    {
        // CTA 5 is rank 1 of cluster 1: its rows hold cluster 1's tile (iota rows 32..63) + 1000.
        const auto out = kernel_reference(kernel("tma_multicast")).at("out");
        CHECK(i32_at(out, (32 * 5 + 1) * 32 + 2) == (33 * 32 + 2) + 1000);
        CHECK(i32_at(out, 0) == 0);                          // CTA 0, rank 0, tile 0
        CHECK(i32_at(out, (32 * 3) * 32) == 3000);           // CTA 3, rank 3, tile 0 element 0
        CHECK(i32_at(out, (32 * 4) * 32) == 32 * 32);        // CTA 4, rank 0, tile 1 element 0
    }
    {
        // Rank 0's previous neighbour is rank 7, rank 3's is rank 2; four iterations add
        // it * 64 for it = 0..3 (384) to four times p * 4096 + tid.
        const auto out = kernel_reference(kernel("st_async_ring")).at("out");
        CHECK(i32_at(out, 0) == 4 * 7 * 4096 + 384);
        CHECK(i32_at(out, 3 * 64 + 5) == 4 * (2 * 4096 + 5) + 384);
        CHECK(i32_at(out, 7 * 64 + 63) == 4 * (6 * 4096 + 63) + 384);
    }
    {
        const Scenario s = kernel("dsmem_reduce");
        const auto in = initial(s, "in");
        const auto out = kernel_reference(s).at("out");
        const int j = 70;  // read by rank 1 of each cluster (64 r .. 64 r + 63)
        int64_t sum = 0;
        for (int r = 0; r < 4; ++r) sum += (r + 1) * int64_t{i32_at(in, (4 + r) * 256 + j)};
        CHECK(i32_at(out, 256 + j) == sum);
    }
}

TEST_CASE("kernel references: tilus' cp.async matmul equals its tiled replay", "[model][kernels]") {
    const Scenario s = kernel("tilus_cp_async_copy");
    const auto a = initial(s, "A"), b = initial(s, "B");
    const auto c = kernel_reference(s).at("C");
    // Replay of the kernel: block blk covers rows 32 (blk % 2), cols 32 (blk / 2); thread t owns
    // row t / 4, columns 8 (t % 4) .. +7; k steps of 16 through the shared tiles.
    auto half = [](const std::vector<uint8_t>& v, int64_t e) { return f16_bits_to_float(u16_at(v, e)); };
    for (int blk = 0; blk < 4; ++blk)
        for (int t = 0; t < 128; ++t) {
            const int row = 32 * (blk % 2) + t / 4, col0 = 32 * (blk / 2) + 8 * (t % 4);
            float acc[8] = {};
            for (int k0 = 0; k0 < 64; k0 += 16) {
                uint16_t sa[16], sb[16][8];
                for (int k = 0; k < 16; ++k) {
                    sa[k] = u16_at(a, row * 64 + k0 + k);
                    for (int j = 0; j < 8; ++j) sb[k][j] = u16_at(b, (k0 + k) * 64 + col0 + j);
                }
                for (int k = 0; k < 16; ++k)
                    for (int j = 0; j < 8; ++j)
                        acc[j] = std::fma(f16_bits_to_float(sa[k]), f16_bits_to_float(sb[k][j]), acc[j]);  // the device's FMA
            }
            for (int j = 0; j < 8; ++j) REQUIRE(u16_at(c, row * 64 + col0 + j) == float_to_f16_bits(acc[j]));
        }
    // One element by hand, in double: within an f16 rounding of the reference.
    double exact = 0;
    for (int k = 0; k < 64; ++k) exact += double(half(a, 3 * 64 + k)) * half(b, k * 64 + 4);
    CHECK(std::fabs(f16_bits_to_float(u16_at(c, 3 * 64 + 4)) - exact) <= 1e-2);
}

TEST_CASE("kernel references: the ldmatrix / stmatrix.trans path transposes", "[model][kernels]") {
    const Scenario s = kernel("ldmatrix_transpose");
    const auto in = initial(s, "in");
    const auto out = kernel_reference(s).at("out");
    // Replay block 1 through the kernel's swizzled tiles and the fragment layouts of ldmatrix
    // (lane l: row l / 4, elements 2 (l % 4), +1 of each matrix) and stmatrix .trans.
    auto swz = [](int row, int chunk) { return row * 64 + ((chunk ^ (row % 8)) * 8); };
    const int blk = 1;
    std::vector<uint16_t> src(64 * 64), dst(64 * 64, 0);
    for (int r = 0; r < 64; ++r)
        for (int ch = 0; ch < 8; ++ch)
            for (int e = 0; e < 8; ++e) src[swz(r, ch) + e] = u16_at(in, (blk * 64 + r) * 64 + ch * 8 + e);
    for (int warp = 0; warp < 4; ++warp)
        for (int bj = 0; bj < 4; ++bj) {
            const int bi = warp;
            uint16_t frag[32][4][2];  // [lane][matrix][element]
            for (int q = 0; q < 4; ++q) {
                int row_addr[8];  // matrix q's rows, given by lanes 8q .. 8q + 7
                for (int l = 0; l < 8; ++l) row_addr[l] = swz(16 * bi + 8 * (q % 2) + l, 2 * bj + q / 2);
                for (int lane = 0; lane < 32; ++lane)
                    for (int e = 0; e < 2; ++e) frag[lane][q][e] = src[row_addr[lane / 4] + 2 * (lane % 4) + e];
            }
            for (int q = 0; q < 4; ++q) {
                int row_addr[8];
                for (int l = 0; l < 8; ++l) row_addr[l] = swz(16 * bj + 8 * (q / 2) + l, 2 * bi + q % 2);
                // .trans: fragment element (r, c) goes to row c, column r of the stored matrix.
                for (int lane = 0; lane < 32; ++lane)
                    for (int e = 0; e < 2; ++e) dst[row_addr[2 * (lane % 4) + e] + lane / 4] = frag[lane][q][e];
            }
        }
    for (int r = 0; r < 64; ++r)
        for (int ch = 0; ch < 8; ++ch)
            for (int e = 0; e < 8; ++e) REQUIRE(u16_at(out, r * 128 + blk * 64 + ch * 8 + e) == dst[swz(r, ch) + e]);
    CHECK(u16_at(out, 5 * 128 + 70) == u16_at(in, 70 * 64 + 5));
}

TEST_CASE("kernel references: the shuffle reduction's order", "[model][kernels]") {
    Scenario s = kernel("warp_shfl_reduce");
    // With iota inputs every partial sum is an exact integer: warp w sums 128 w .. 128 w + 127.
    s.globals[0].init = InitSpec{InitSpec::Kind::iota};
    REQUIRE(s.globals[0].name == "in");
    const auto iota = kernel_reference(s).at("out");
    for (int w : {0, 1, 31}) CHECK(f32_at(iota, w) == float(128 * 128 * w + 127 * 128 / 2));
    // With random inputs the butterfly order matters; lane 0's first round pairs lanes 0 and 16.
    const Scenario r = kernel("warp_shfl_reduce");
    const auto in = initial(r, "in");
    const auto out = kernel_reference(r).at("out");
    double exact = 0;
    for (int e = 0; e < 128; ++e) exact += f32_at(in, e);
    CHECK(std::fabs(f32_at(out, 0) - exact) < 1e-4);
    float v[32];
    for (int l = 0; l < 32; ++l)
        v[l] = ((f32_at(in, 4 * l) + f32_at(in, 4 * l + 1)) + f32_at(in, 4 * l + 2)) + f32_at(in, 4 * l + 3);
    // The same butterfly written as the tree it builds for lane 0.
    auto tree = [&](auto&& self, int lane, int mask) -> float {
        if (mask == 32) return v[lane];
        return self(self, lane, mask * 2) + self(self, lane ^ mask, mask * 2);
    };
    CHECK(f32_at(out, 0) == tree(tree, 0, 1));
}

TEST_CASE("kernel references: bulk reduce-add and the device-encoded tensor map", "[model][kernels]") {
    {
        const Scenario s = kernel("bulk_reduce_add");
        const auto p = initial(s, "partials");
        const auto out = kernel_reference(s).at("out");
        int64_t sum = 1000;
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 8; ++r) sum += i32_at(p, (c * 8 + r) * 256 + 17);
        CHECK(i32_at(out, 17) == sum);
    }
    {
        const Scenario s = kernel("device_encoded_tensormap");
        const auto g = initial(s, "G"), g2 = initial(s, "G2");
        const auto ref = kernel_reference(s);
        CHECK(ref.count("gmap") == 0);  // the driver's opaque encoding
        const auto& out = ref.at("out");
        CHECK(out[2 * 128 + 100] == g[2 * 256 + 100]);  // first load: box (0, 0) of G
        CHECK(out[5 * 128 + 3] == g2[5 * 256 + 131]);   // second: box (128, 4) of G2
        CHECK(out[7 * 128 + 127] == g2[7 * 256 + 255]);
    }
}

TEST_CASE("kernel references: the gather4 lookup", "[model][kernels]") {
    const Scenario s = kernel("tma_gather4_rows");
    const auto table = initial(s, "table"), idx = initial(s, "idx");
    const auto out = kernel_reference(s).at("out");
    for (int i : {0, 7, 15}) {
        const int row = i32_at(idx, i);
        CHECK(f32_at(out, i * 64 + 3) == f32_at(table, row * 64 + 3));
    }
}

TEST_CASE("kernel references: the wgmma GEMM's tiles, fragments and descriptors", "[model][kernels]") {
    const Scenario s = kernel("gemm_ws_tma_wgmma");
    const auto a = initial(s, "A"), b = initial(s, "B");
    const auto c = kernel_reference(s).at("C");
    const int M = 256, N = 256, K = 512;
    auto af = [&](int i, int k) { return f16_bits_to_float(u16_at(a, int64_t(i) * K + k)); };
    auto bf = [&](int j, int k) { return f16_bits_to_float(u16_at(b, int64_t(j) * K + k)); };

    // One element by hand: C[5][7], k ascending, a product then an add.
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc = acc + af(5, k) * bf(7, k);
    CHECK(f32_at(c, 5 * N + 7) == acc);

    // The kernel's tiling writes every element of C exactly once: CTA blk is rank blk % 2 of pair
    // blk / 2 (rows 128 rank, columns 128 pair); consumer warpgroup cw, warp w, lane l, register i.
    std::vector<int> hits(M * N, 0);
    for (int blk = 0; blk < 4; ++blk)
        for (int cw = 0; cw < 2; ++cw)
            for (int w = 0; w < 4; ++w)
                for (int lane = 0; lane < 32; ++lane)
                    for (int i = 0; i < 64; ++i) {
                        const int row = (blk % 2) * 128 + 64 * cw + 16 * w + lane / 4 + 8 * ((i / 2) % 2);
                        const int col = (blk / 2) * 128 + 8 * (i / 4) + 2 * (lane % 4) + i % 2;
                        ++hits[row * N + col];
                    }
    for (int h : hits) REQUIRE(h == 1);

    // TMA 128B swizzle vs the descriptor's K advance: element (r, k) of a [rows, 64] box lands at
    // r * 128 + ((2k / 16) ^ (r % 8)) * 16 + 2k % 16 (tile 1024-aligned); the mma for slice k16
    // reads logical (r, kk) at start + 32 k16 + r * 128 + 2 kk, with the 16-byte chunk bits
    // XORed by the row bits of that address. Both name the same byte for every element.
    for (int r = 0; r < 128; ++r)
        for (int k16 = 0; k16 < 4; ++k16)
            for (int kk = 0; kk < 16; ++kk) {
                const int k = 16 * k16 + kk;
                const int tma = r * 128 + (((2 * k) / 16) ^ (r % 8)) * 16 + (2 * k) % 16;
                const int linear = 32 * k16 + r * 128 + 2 * kk;
                const int mma = (linear & ~0x70) | ((((linear >> 4) & 7) ^ ((linear >> 7) & 7)) << 4);
                REQUIRE(tma == mma);
            }

    // The bound covers the model's order (16 products summed, then added to D) and the exact sum.
    const int bound = kernel_reference_ulp_bounds(s).at("C");
    int64_t worst_model = 0, worst_exact = 0;
    for (int i = 0; i < M; i += 3)
        for (int j = 0; j < N; j += 5) {
            float d = 0.0f;
            double exact = 0;
            for (int k0 = 0; k0 < K; k0 += 16) {
                float sum = 0.0f;
                for (int k = k0; k < k0 + 16; ++k) {
                    sum = sum + af(i, k) * bf(j, k);
                    exact += double(af(i, k)) * bf(j, k);
                }
                d = k0 == 0 ? sum : sum + d;
            }
            worst_model = std::max(worst_model, f32_ulp_distance(d, f32_at(c, i * N + j)));
            worst_exact = std::max(worst_exact, f32_ulp_distance(static_cast<float>(exact), f32_at(c, i * N + j)));
        }
    INFO("model order " << worst_model << " ulps, exact sum " << worst_exact << " ulps from the reference");
    CHECK(worst_model <= bound);
    CHECK(worst_model <= 32);  // the model's own order stays much closer (21 over all of C)
    CHECK(worst_exact <= bound);
    CHECK(worst_model > 0);  // the orders do differ: a bound of 0 would fail on the model
}
