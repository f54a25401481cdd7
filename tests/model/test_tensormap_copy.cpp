// TensorCopy from a map's fields: padded strides (a replaced global_stride), the innermost
// element stride the TMA ignores, and the byte placement of interleaved boxes. The
// interleave expectations are what an H200 did with the same descriptors (probes run for
// this model: each 16-byte chunk of shared memory located in a random global buffer).
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "model/copy/tensor_copy.h"
#include "scenarios/values.h"

using namespace tmasim;
using tmasim::model::MapFields;
using tmasim::model::TensorCopy;

namespace {
MapFields fields(DType type, std::vector<int64_t> dims, std::vector<int64_t> strides, std::vector<int64_t> box,
                 Interleave il = Interleave::none, std::vector<int64_t> es = {}) {
    MapFields f;
    f.map = "m";
    f.tensor = "T";
    f.type = type;
    f.global_dims = std::move(dims);
    f.global_strides = std::move(strides);
    f.box = std::move(box);
    f.element_strides = es.empty() ? std::vector<int64_t>(f.box.size(), 1) : std::move(es);
    f.interleave = il;
    f.swizzle = il == Interleave::b32 ? Swizzle::b32 : Swizzle::none;
    return f;
}
std::vector<uint8_t> pattern(int64_t n) {
    std::vector<uint8_t> g(n);
    for (int64_t i = 0; i < n; ++i) g[i] = static_cast<uint8_t>((i * 7 + i / 251 + 3) & 0xFF);
    return g;
}
// Every 16-byte chunk of `box` is the 16 global bytes at `sources[k]` (-1: zero fill).
void check_chunks(const std::vector<uint8_t>& box, const std::vector<uint8_t>& global,
                  const std::vector<int64_t>& sources) {
    REQUIRE(box.size() == sources.size() * 16);
    for (size_t k = 0; k < sources.size(); ++k)
        for (int64_t j = 0; j < 16; ++j) {
            INFO("chunk " << k << " byte " << j << " from " << sources[k]);
            REQUIRE(box[k * 16 + j] == (sources[k] < 0 ? 0 : global[sources[k] + j]));
        }
}
std::vector<int64_t> run(int64_t first, int64_t count, int64_t step) {
    std::vector<int64_t> out;
    for (int64_t i = 0; i < count; ++i) out.push_back(first + i * step);
    return out;
}
std::vector<int64_t> concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}
}  // namespace

TEST_CASE("tensor copy from fields: a padded row stride and a ragged box", "[model][tensormap]") {
    // 8 rows of 16 i32 with a 128-byte row stride (a replaced global_stride), box 4 x 16.
    const auto f = fields(DType::i32, {8, 16}, {128}, {4, 16});
    const TensorCopy copy(f);
    const auto global = pattern(8 * 128);
    const auto box = copy.gather_global(global, {2, 0});
    REQUIRE(box.size() == 4 * 16 * 4);
    for (int64_t r = 0; r < 4; ++r)
        for (int64_t b = 0; b < 64; ++b) REQUIRE(box[r * 64 + b] == global[(r + 2) * 128 + b]);
    // Rows 6 and 7 of the box start at 8: out of bounds, zero.
    const auto tail = copy.gather_global(global, {6, 0});
    CHECK(tail[2 * 64] == 0);
    CHECK(tail[1 * 64] == global[7 * 128]);
    CHECK(copy.global_span({6, 0}) == std::make_pair<int64_t, int64_t>(6 * 128, 7 * 128 + 63));
}

TEST_CASE("tensor copy from fields: the innermost element stride is ignored without interleave", "[model][tensormap]") {
    const auto f = fields(DType::u8, {4, 8, 16}, {4096, 256}, {2, 4, 16}, Interleave::none, {1, 1, 2});
    const TensorCopy copy(f);
    CHECK(copy.box_bytes() == 2 * 4 * 16);  // an H200 loaded all 16 bytes of each row
    CHECK(copy.extent() == std::vector<int64_t>{2, 4, 16});
}

TEST_CASE("interleave 16B: units of 16 bytes, dimension 1 at one index (H200 placement)", "[model][tensormap][interleave]") {
    const auto global = pattern(65536);
    SECTION("u8 [4, 8, 16], strides [4096, 256], box [2, 4, 16] at 0: 16 units per outer index") {
        const TensorCopy copy(fields(DType::u8, {4, 8, 16}, {4096, 256}, {2, 4, 16}, Interleave::b16));
        CHECK(copy.box_bytes() == 512);
        check_chunks(copy.gather_global(global, {0, 0, 0}), global, concat(run(0, 16, 16), run(4096, 16, 16)));
        // Dimension 1's coordinate still moves the box (row 3 of 8 at 256 bytes each).
        check_chunks(copy.gather_global(global, {0, 3, 0}), global, concat(run(768, 16, 16), run(4864, 16, 16)));
    }
    SECTION("the innermost coordinate counts units; units past the global dim are zero") {
        const TensorCopy copy(fields(DType::u8, {4, 8, 16}, {4096, 256}, {2, 4, 16}, Interleave::b16));
        auto first = run(4096 + 32, 14, 16);
        first.push_back(-1);
        first.push_back(-1);
        auto second = run(8192 + 32, 14, 16);
        second.push_back(-1);
        second.push_back(-1);
        check_chunks(copy.gather_global(global, {1, 0, 2}), global, concat(first, second));
    }
    SECTION("dimension 1 out of bounds fills the whole box") {
        const TensorCopy copy(fields(DType::u8, {4, 8, 16}, {4096, 256}, {2, 4, 16}, Interleave::b16));
        check_chunks(copy.gather_global(global, {0, 8, 0}), global, std::vector<int64_t>(32, -1));
        check_chunks(copy.gather_global(global, {0, -1, 0}), global, std::vector<int64_t>(32, -1));
    }
    SECTION("the innermost element stride steps over units") {
        const TensorCopy copy(fields(DType::u8, {4, 8, 16}, {4096, 256}, {2, 4, 16}, Interleave::b16, {1, 1, 2}));
        check_chunks(copy.gather_global(global, {0, 0, 0}), global, concat(run(0, 8, 32), run(4096, 8, 32)));
    }
    SECTION("f32 units are 16 bytes too: box 4 is 4 units, global dim 4 bounds them") {
        const TensorCopy copy(fields(DType::f32, {4, 8, 4}, {4096, 256}, {2, 1, 16}, Interleave::b16));
        auto block = run(0, 4, 16);
        block.resize(16, -1);
        auto block2 = run(4096, 4, 16);
        block2.resize(16, -1);
        check_chunks(copy.gather_global(global, {0, 0, 0}), global, concat(block, block2));
    }
    SECTION("rank 5: dimension 1 (the driver's dimension 3) is the one moved at one index") {
        const TensorCopy copy(fields(DType::u8, {2, 4, 4, 4, 16}, {16384, 4096, 1024, 256}, {2, 2, 2, 2, 16},
                                     Interleave::b16));
        std::vector<int64_t> want;
        for (int64_t outer : {0, 16384})
            for (int64_t d2 : {0, 1024})
                for (int64_t d3 : {0, 256}) want = concat(want, run(outer + d2 + d3, 16, 16));
        check_chunks(copy.gather_global(global, {0, 0, 0, 0, 0}), global, want);
    }
    SECTION("a store writes back to the same places") {
        const TensorCopy copy(fields(DType::f32, {2, 4, 16}, {256, 64}, {2, 2, 4}, Interleave::b16, {1, 1, 2}));
        std::vector<uint8_t> box(64);
        for (int i = 0; i < 64; ++i) box[i] = static_cast<uint8_t>(i + 1);
        std::vector<uint8_t> out(512, 0);
        CHECK(copy.scatter_global(box, {0, 1, 1}, out) == 0);
        for (int64_t k = 0; k < 4; ++k) {
            const int64_t at = std::vector<int64_t>{80, 112, 336, 368}[k];
            for (int64_t j = 0; j < 16; ++j) REQUIRE(out[at + j] == box[k * 16 + j]);
        }
        int64_t written = 0;
        for (uint8_t b : out) written += b != 0;
        CHECK(written == 64);
    }
}

TEST_CASE("interleave 32B: 32-byte units, placed then swizzled by 32B (H200 placement)", "[model][tensormap][interleave]") {
    const auto global = pattern(65536);
    const TensorCopy copy(fields(DType::u8, {4, 8, 16}, {4096, 256}, {2, 4, 16}, Interleave::b32));
    CHECK(copy.box_bytes() == 1024);
    std::vector<uint8_t> smem(2048, 0xEE);
    copy.scatter_smem(copy.gather_global(global, {0, 0, 0}), smem, 0);
    const std::vector<uint8_t> landed(smem.begin(), smem.begin() + 1024);
    // Measured: 128-byte line 1 holds its 16-byte chunks pairwise swapped.
    const std::vector<int64_t> lines01 = {0, 16, 32, 48, 64, 80, 96, 112, 144, 128, 176, 160, 208, 192, 240, 224};
    std::vector<int64_t> want = lines01;
    for (int64_t base : {256, 4096, 4352})
        for (int64_t c : lines01) want.push_back(base + c);
    check_chunks(landed, global, want);
}
