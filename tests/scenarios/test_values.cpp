#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "scenarios/layout.h"
#include "scenarios/loader.h"
#include "scenarios/values.h"

using namespace tmasim;

TEST_CASE("f16 conversion rounds to nearest even, handles subnormals and overflow") {
    CHECK(float_to_f16_bits(1.0f) == 0x3c00);
    CHECK(float_to_f16_bits(-2.0f) == 0xc000);
    CHECK(float_to_f16_bits(65504.0f) == 0x7bff);
    CHECK(float_to_f16_bits(65520.0f) == 0x7c00);          // rounds up to infinity
    CHECK(float_to_f16_bits(std::ldexp(1.0f, -24)) == 0x0001);  // smallest subnormal
    CHECK(float_to_f16_bits(std::ldexp(1.0f, -26)) == 0x0000);  // below half of it
    CHECK(float_to_f16_bits(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);  // tie -> even
    CHECK(float_to_f16_bits(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);  // tie -> even (up)
    CHECK(f16_bits_to_float(0x3555) == Approx(0.333251953125f));
    CHECK(std::isnan(f16_bits_to_float(float_to_f16_bits(NAN))));
}

TEST_CASE("bf16 conversion rounds to nearest even") {
    CHECK(float_to_bf16_bits(1.0f) == 0x3f80);
    CHECK(float_to_bf16_bits(1.00390625f) == 0x3f80);  // tie -> even (down)
    CHECK(float_to_bf16_bits(1.01171875f) == 0x3f82);  // tie -> even (up)
    CHECK(bf16_bits_to_float(0x4049) == 3.140625f);
}

TEST_CASE("integer stores wrap to the element type") {
    uint8_t buf[8] = {};
    store_element_int(buf, DType::u8, 0, 257);
    CHECK(buf[0] == 1);
    store_element_int(buf, DType::i32, 1, (int64_t(1) << 32) + 5);
    CHECK(load_element_int(buf, DType::i32, 1) == 5);
    store_element_int(buf, DType::i32, 1, -3);
    CHECK(load_element_int(buf, DType::i32, 1) == -3);
}

TEST_CASE("initial bytes: iota, fill and seeded random are deterministic") {
    GlobalTensor t;
    t.type = DType::i32;
    t.shape = {4, 4};
    t.init.kind = InitSpec::Kind::iota;
    auto b = initial_bytes(t);
    REQUIRE(b.size() == 64);
    CHECK(load_element_int(b.data(), DType::i32, 13) == 13);

    t.type = DType::f32;
    t.init.kind = InitSpec::Kind::random;
    t.init.seed = 7;
    t.init.min = -1;
    t.init.max = 1;
    auto r1 = initial_bytes(t), r2 = initial_bytes(t);
    CHECK(r1 == r2);
    t.init.seed = 8;
    CHECK(initial_bytes(t) != r1);
    for (int e = 0; e < 16; ++e) {
        float v = load_element_float(r1.data(), DType::f32, e);
        CHECK(v >= -1.0f);
        CHECK(v < 1.0f);
    }
    CHECK(fnv1a64_hex("", 0) == "cbf29ce484222325");
    CHECK(fnv1a64_hex("a", 1) == "af63dc4c8601ec8c");
}

TEST_CASE("an f32 iota of many blocks (and of huge pages) holds each element's index") {
    GlobalTensor t;
    t.type = DType::f32;
    t.init.kind = InitSpec::Kind::iota;
    // 4096-element blocks are appended without zeroing first; 8 MB takes the huge-page path.
    for (int64_t rows : {int64_t(3), int64_t(32768)}) {
        t.shape = {rows, 64};
        const std::vector<uint8_t> b = initial_bytes(t);
        REQUIRE(b.size() == static_cast<size_t>(rows * 64 * 4));
        int64_t wrong = 0;
        for (int64_t e = 0; e < rows * 64; ++e)
            wrong += load_element_float(b.data(), DType::f32, e) != static_cast<float>(e);
        CHECK(wrong == 0);
    }
    // The general path agrees: an f32 fill zeroes nothing it should not.
    t.shape = {4097};
    t.init.kind = InitSpec::Kind::fill;
    t.init.fill_value = 2.5;
    const std::vector<uint8_t> filled = initial_bytes(t);
    REQUIRE(filled.size() == 4097 * 4);
    CHECK(load_element_float(filled.data(), DType::f32, 4096) == 2.5f);
}

TEST_CASE("shared layout aligns buffers and places barriers after them") {
    Scenario sc = load_scenario_text(R"(
scenario: layout
launch: {grid: [1], block: 32}
shared:
  a: {type: u8, shape: [100], align: 16}
  b: {type: f32, shape: [8, 8], align: 1024, array: 2}
barriers:
  full: {array: 2}
  one:
program:
  - {op: sync}
)", "layout.yaml");
    SharedLayout l = compute_shared_layout(sc);
    CHECK(l.offset_of("a", 0) == 0);
    CHECK(l.offset_of("b", 0) == 1024);
    CHECK(l.offset_of("b", 1) == 2048);
    CHECK(l.offset_of("full", 0) == 3072);  // b[1] ends at 3072: each array entry is 1024-aligned
    CHECK(l.offset_of("full", 1) == 3080);
    CHECK(l.offset_of("one", 0) == 3088);
    CHECK(l.total_bytes == 3104);
    CHECK_THROWS_AS(l.offset_of("full", 2), std::out_of_range);
}

TEST_CASE("fnv1a64_hex_each hashes each block as fnv1a64_hex does, four at a time or alone") {
    // Blocks of unequal sizes (empty ones too) in groups of four and a tail: the common
    // prefix runs interleaved, each block's rest alone.
    std::vector<std::vector<uint8_t>> data;
    for (size_t n : {size_t(16384), size_t(0), size_t(1), size_t(16384), size_t(100), size_t(16383), size_t(7),
                     size_t(4096), size_t(16384), size_t(3)}) {
        std::vector<uint8_t> bytes(n);
        for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>((i * 131 + n) ^ (i >> 7));
        data.push_back(std::move(bytes));
    }
    std::vector<std::pair<const uint8_t*, size_t>> blocks;
    for (const auto& d : data) blocks.emplace_back(d.data(), d.size());
    const std::vector<std::string> each = fnv1a64_hex_each(blocks);
    REQUIRE(each.size() == data.size());
    for (size_t b = 0; b < data.size(); ++b) CHECK(each[b] == fnv1a64_hex(data[b].data(), data[b].size()));
    CHECK(fnv1a64_hex_each({}).empty());
}
