#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "model/copy/swizzle_address.h"
#include "model/copy/tensor_copy.h"
#include "scenarios/values.h"

using namespace tmasim;
using tmasim::model::swizzled_address;
using tmasim::model::TensorCopy;

namespace {
GlobalTensor tensor_i32(std::vector<int64_t> shape) {
    GlobalTensor t;
    t.name = "T";
    t.type = DType::i32;
    t.shape = std::move(shape);
    return t;
}
TensorMap map_of(std::vector<int64_t> box, Swizzle sw = Swizzle::none) {
    TensorMap m;
    m.name = "m";
    m.tensor = "T";
    m.box = std::move(box);
    m.swizzle = sw;
    return m;
}
std::vector<uint8_t> iota_i32(int64_t n) {
    std::vector<uint8_t> b(n * 4);
    for (int64_t i = 0; i < n; ++i) store_element_int(b.data(), DType::i32, i, i);
    return b;
}
int64_t at(const std::vector<uint8_t>& b, int64_t e) { return load_element_int(b.data(), DType::i32, e); }
}  // namespace

TEST_CASE("swizzle: 128B moves chunk c of line L to c ^ (L % 8) (PTX 5.5.7 table)", "[model][swizzle]") {
    for (int64_t line = 0; line < 16; ++line)
        for (int64_t c = 0; c < 8; ++c)
            for (int64_t byte : {0, 5, 15}) {
                const int64_t addr = line * 128 + c * 16 + byte;
                CHECK(swizzled_address(Swizzle::b128, addr) == line * 128 + ((c ^ (line % 8)) * 16) + byte);
                CHECK(swizzled_address(Swizzle::b64, addr) == line * 128 + ((c ^ (line % 4)) * 16) + byte);
                CHECK(swizzled_address(Swizzle::b32, addr) == line * 128 + ((c ^ (line % 2)) * 16) + byte);
                CHECK(swizzled_address(Swizzle::none, addr) == addr);
            }
    // Spot values of the table: line 3, chunk 1 -> chunk 2; line 7, chunk 0 -> chunk 7.
    CHECK(swizzled_address(Swizzle::b128, 3 * 128 + 1 * 16) == 3 * 128 + 2 * 16);
    CHECK(swizzled_address(Swizzle::b128, 7 * 128) == 7 * 128 + 7 * 16);
}

TEST_CASE("tensor copy: 128B-swizzled box placement uses the absolute address", "[model][swizzle]") {
    // 8 rows of 32 i32 (128 B per row). At offset 0 row r is line r; at offset 384 the
    // box starts on line 3, so row r is line r+3 and the XOR pattern is shifted (E29).
    const GlobalTensor t = tensor_i32({8, 32});
    const TensorCopy copy(t, map_of({8, 32}, Swizzle::b128));
    const auto global = iota_i32(8 * 32);
    const auto box = copy.gather_global(global, {0, 0});
    for (int64_t base : {0, 384}) {
        std::vector<uint8_t> smem(2048, 0xEE);
        copy.scatter_smem(box, smem, base);
        for (int64_t r = 0; r < 8; ++r)
            for (int64_t col = 0; col < 32; ++col) {
                const int64_t line = base / 128 + r, chunk = col / 4;
                const int64_t phys = line * 128 + (chunk ^ (line % 8)) * 16 + (col % 4) * 4;
                INFO("base " << base << " row " << r << " col " << col);
                REQUIRE(at(smem, phys / 4) == r * 32 + col);
            }
        // Reading it back through the same mode undoes the swizzle.
        CHECK(copy.gather_smem(smem, base) == box);
    }
}

TEST_CASE("tensor copy: a box overhanging the tensor is zero filled", "[model][tensor_copy]") {
    // 4x6 tensor, box 4x4 at row 2, column 4: rows 4-5 and columns 6-7 are outside.
    const GlobalTensor t = tensor_i32({4, 6});
    const TensorCopy copy(t, map_of({4, 4}));
    CHECK(copy.box_bytes() == 64);
    const auto box = copy.gather_global(iota_i32(24), {2, 4});
    for (int64_t r = 0; r < 4; ++r)
        for (int64_t c = 0; c < 4; ++c) {
            const int64_t gr = 2 + r, gc = 4 + c;
            const int64_t want = (gr < 4 && gc < 6) ? gr * 6 + gc : 0;
            INFO("row " << r << " col " << c);
            CHECK(at(box, r * 4 + c) == want);
        }
    // Negative coordinates load too: the part before the tensor is filled.
    const auto neg = copy.gather_global(iota_i32(24), {-1, -2});
    CHECK(at(neg, 0) == 0);
    CHECK(at(neg, 1 * 4 + 2) == 0);  // row 0, column 0 of the tensor
    CHECK(at(neg, 2 * 4 + 3) == 7);  // row 1, column 1
}

TEST_CASE("tensor copy: NaN fill for float maps with oob_fill nan", "[model][tensor_copy]") {
    GlobalTensor t = tensor_i32({2, 4});
    t.type = DType::f32;
    TensorMap m = map_of({2, 4});
    m.oob_fill = OobFill::nan;
    const TensorCopy copy(t, m);
    std::vector<uint8_t> global(32, 0);
    store_element_float(global.data(), DType::f32, 3, 2.5f);
    const auto box = copy.gather_global(global, {0, 2});
    CHECK(load_element_float(box.data(), DType::f32, 1) == 2.5f);  // column 3
    CHECK(std::isnan(load_element_float(box.data(), DType::f32, 2)));
    CHECK(load_element_float(box.data(), DType::f32, 0) == 0.0f);
    // The bytes an H200 writes (traces/recorded/NVIDIA-H200/oob/nan_fill_f32.jsonl): every
    // 16-bit half 0x7FF7, not the canonical 0x7FC00000.
    const std::vector<uint8_t> fill(box.begin() + 8, box.begin() + 12);
    CHECK(fill == std::vector<uint8_t>{0xF7, 0x7F, 0xF7, 0x7F});
}

TEST_CASE("tensor copy: NaN fill of f16 and bf16 is 0x7FF7 as on an H200", "[model][tensor_copy]") {
    for (DType type : {DType::f16, DType::bf16}) {
        std::vector<uint8_t> element(2, 0);
        TensorCopy::fill_oob_element(element.data(), type, OobFill::nan);
        CHECK(element == std::vector<uint8_t>{0xF7, 0x7F});
        TensorCopy::fill_oob_element(element.data(), type, OobFill::zero);
        CHECK(element == std::vector<uint8_t>{0x00, 0x00});
    }
}

TEST_CASE("tensor copy: element strides load ceil(box/stride) elements", "[model][tensor_copy]") {
    const GlobalTensor t = tensor_i32({8, 8});
    TensorMap m = map_of({5, 8});
    m.element_strides = {2, 1};
    const TensorCopy copy(t, m);
    CHECK(copy.extent() == std::vector<int64_t>{3, 8});
    const auto box = copy.gather_global(iota_i32(64), {1, 0});
    CHECK(at(box, 0) == 8);       // row 1
    CHECK(at(box, 8) == 24);      // row 3
    CHECK(at(box, 16 + 5) == 45); // row 5, column 5
}

TEST_CASE("tensor copy: stores skip out-of-bounds elements", "[model][tensor_copy]") {
    const GlobalTensor t = tensor_i32({4, 6});
    const TensorCopy copy(t, map_of({4, 4}));
    std::vector<uint8_t> box(64);
    for (int64_t i = 0; i < 16; ++i) store_element_int(box.data(), DType::i32, i, 100 + i);
    auto global = iota_i32(24);
    CHECK(copy.scatter_global(box, {2, 4}, global) == 12);  // 4 of 16 in bounds
    CHECK(at(global, 2 * 6 + 4) == 100);
    CHECK(at(global, 3 * 6 + 5) == 105);
    CHECK(at(global, 2 * 6 + 3) == 15);  // untouched
    CHECK(at(global, 23) == 105);
}

TEST_CASE("tensor copy: 1-D bulk copy and its bounds", "[model][tensor_copy]") {
    std::vector<uint8_t> src(64), dst(32, 0);
    for (int i = 0; i < 64; ++i) src[i] = static_cast<uint8_t>(i);
    TensorCopy::bulk_copy(src, 16, dst, 0, 32, "test");
    CHECK(dst[0] == 16);
    CHECK(dst[31] == 47);
    CHECK_THROWS_AS(TensorCopy::bulk_copy(src, 48, dst, 0, 32, "test"), std::out_of_range);
    CHECK_THROWS_AS(TensorCopy::bulk_copy(src, 0, dst, 16, 32, "test"), std::out_of_range);
}

TEST_CASE("tensor copy: the row-at-a-time element walk gives each element its definition's index",
          "[model][tensor_copy]") {
    // A 3-D box with an element stride, overhanging the tensor on every side: element k
    // (row-major over the extents) sits at coords + index * stride in each dimension, and
    // is out of bounds (-1) where any coordinate leaves the tensor.
    const GlobalTensor t = tensor_i32({5, 6, 7});
    TensorMap m = map_of({3, 5, 4});
    m.element_strides = {1, 2, 1};
    const TensorCopy copy(t, m);
    const std::vector<int64_t> ext = copy.extent();
    REQUIRE(ext == std::vector<int64_t>{3, 3, 4});
    for (const std::vector<int64_t>& coords :
         std::vector<std::vector<int64_t>>{{-1, -2, 5}, {3, 1, -2}, {0, 0, 0}, {2, 4, 3}}) {
        std::vector<int64_t> expected;
        for (int64_t a = 0; a < ext[0]; ++a)
            for (int64_t b = 0; b < ext[1]; ++b)
                for (int64_t c = 0; c < ext[2]; ++c) {
                    const int64_t x = coords[0] + a, y = coords[1] + 2 * b, z = coords[2] + c;
                    const bool in = x >= 0 && x < 5 && y >= 0 && y < 6 && z >= 0 && z < 7;
                    expected.push_back(in ? (x * 6 + y) * 7 + z : -1);
                }
        CHECK(copy.global_elements(coords) == expected);
        const auto box = copy.gather_global(iota_i32(5 * 6 * 7), coords);
        for (size_t k = 0; k < expected.size(); ++k) CHECK(at(box, static_cast<int64_t>(k)) == std::max<int64_t>(expected[k], 0));
    }
}

TEST_CASE("tensor copy: chunked shared-memory moves put every byte where swizzled_address says",
          "[model][swizzle]") {
    const GlobalTensor t = tensor_i32({64, 64});
    for (Swizzle sw : {Swizzle::none, Swizzle::b32, Swizzle::b64, Swizzle::b128}) {
        const TensorCopy copy(t, map_of({8, 32}, sw));
        std::vector<uint8_t> box(static_cast<size_t>(copy.box_bytes()));
        for (size_t i = 0; i < box.size(); ++i) box[i] = static_cast<uint8_t>(i * 7 + 3);
        for (int64_t offset : {0, 1024, 2048 + 16}) {
            std::vector<uint8_t> smem(8192, 0xEE);
            copy.scatter_smem(box, smem, offset);
            for (size_t b = 0; b < box.size(); ++b)
                CHECK(smem[static_cast<size_t>(swizzled_address(sw, offset + static_cast<int64_t>(b)))] == box[b]);
            CHECK(copy.gather_smem(smem, offset) == box);
        }
        // A box that would leave shared memory still fails the way it always did.
        std::vector<uint8_t> small(512, 0);
        CHECK_THROWS_AS(copy.scatter_smem(box, small, 0), std::out_of_range);
    }
}
