// A TMA load of a tensor that still holds its init lands straight from the init
// (RequestBytes::lands_from_init): the shared-memory bytes must be those that reading the
// box at issue and writing it at landing give, out-of-bounds fill included, and stay the
// init's even when the tensor is written in between; held by a SharedMemoryImage until read,
// they must read the same.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/copy/request_bytes.h"
#include "model/copy/shared_memory_image.h"
#include "model/state/global_memory.h"

using namespace tmasim;
using tmasim::model::GlobalMemory;
using tmasim::model::RequestBytes;
using tmasim::model::TmaRequest;

namespace {
Scenario with_tensor(InitSpec::Kind init) {
    Scenario s;
    GlobalTensor t;
    t.name = "T";
    t.type = DType::f32;
    t.shape = {64, 32};
    t.init.kind = init;
    t.init.seed = 7;
    s.globals.push_back(t);
    return s;
}

TensorMap map_of(Swizzle swizzle) {
    TensorMap m;
    m.name = "m";
    m.tensor = "T";
    m.box = {8, 32};
    m.swizzle = swizzle;
    return m;
}

TmaRequest load(const TensorMap& map, std::vector<int64_t> coords) {
    TmaRequest r;
    r.kind = TmaRequest::Kind::tensor_load;
    r.map = &map;
    r.tensor = "T";
    r.coords = std::move(coords);
    r.smem_offset = 1024;
    r.bytes = 8 * 32 * 4;
    return r;
}
}  // namespace

TEST_CASE("TMA landing: a box landed from the init equals the box read at issue", "[model][tensor_copy]") {
    for (InitSpec::Kind init : {InitSpec::Kind::iota, InitSpec::Kind::random}) {
        const Scenario s = with_tensor(init);
        const TensorMap map = map_of(Swizzle::none);
        for (std::vector<int64_t> coords : {std::vector<int64_t>{4, 0}, {60, 0}, {-3, 16}}) {  // in, over, under
            GlobalMemory global(s);
            const TmaRequest r = load(map, coords);
            const RequestBytes bytes(r, s.globals.front());
            std::vector<uint8_t> expected(4096, 0xAB), got(4096, 0xAB);
            bytes.write_smem(bytes.read_global(global), expected);
            REQUIRE(bytes.lands_from_init(global, got.size()));
            bytes.write_smem_from_init(global, got);
            CHECK(got == expected);
            // Written after the issue: the landing still brings the bytes read at issue.
            global.bytes("T").assign(global.bytes("T").size(), 0x11);
            CHECK_FALSE(bytes.lands_from_init(global, got.size()));  // a later issue reads the bytes
            std::vector<uint8_t> later(4096, 0xAB);
            bytes.write_smem_from_init(global, later);
            CHECK(later == expected);
        }
    }
}

TEST_CASE("TMA landing: swizzled boxes and boxes outside shared memory keep their payload", "[model][tensor_copy]") {
    const Scenario s = with_tensor(InitSpec::Kind::iota);
    GlobalMemory global(s);
    const TensorMap swizzled = map_of(Swizzle::b128), plain = map_of(Swizzle::none);
    const TmaRequest a = load(swizzled, {0, 0}), b = load(plain, {0, 0});
    CHECK_FALSE(RequestBytes(a, s.globals.front()).lands_from_init(global, 4096));
    CHECK(RequestBytes(b, s.globals.front()).lands_from_init(global, 1024 + 1024));
    CHECK_FALSE(RequestBytes(b, s.globals.front()).lands_from_init(global, 1024 + 1023));
}

// SharedMemoryImage holds such landings until the bytes are read: what a read sees must be
// what writing each landing when it landed gave, whatever overlaps, drops and the cap do.
TEST_CASE("Shared memory image: held init landings read as if written when they landed", "[model][tensor_copy]") {
    const Scenario s = with_tensor(InitSpec::Kind::random);
    GlobalMemory global(s);
    const TensorMap map = map_of(Swizzle::none);
    tmasim::model::SharedMemoryImage image(8192, global);
    std::vector<uint8_t> eager(8192, 0);
    auto land = [&](std::vector<int64_t> coords, int64_t offset) {
        TmaRequest r = load(map, std::move(coords));
        r.smem_offset = offset;
        const RequestBytes bytes(r, s.globals.front());
        bytes.write_smem_from_init(global, eager);
        image.land_from_init(bytes.init_landing());
    };
    SECTION("a later landing overlapping part of an earlier one wins where they overlap") {
        land({0, 0}, 1024);  // [1024, 2048)
        land({8, 0}, 1536);  // [1536, 2560): half of the first stays visible
        land({16, 0}, 0);
        CHECK(image.held() == 3);
        CHECK(image.bytes() == eager);
        CHECK(image.held() == 0);
    }
    SECTION("a landing covered by a later one is dropped; a const read writes too") {
        land({0, 0}, 1024);
        land({24, 0}, 1024);
        CHECK(image.held() == 1);
        const tmasim::model::SharedMemoryImage& read_only = image;
        CHECK(read_only.bytes() == eager);
    }
    SECTION("past kMostHeld landings the held ones are written, in order") {
        // 1 KB boxes at 512-byte steps: each overlaps the one before, none covers another.
        for (int i = 0; i < 14; ++i) land({i * 4, 0}, i * 512);
        for (int i = 0; i < 14; ++i) land({i * 4 + 2, 0}, i * 512 + 256);
        CHECK(image.held() <= tmasim::model::SharedMemoryImage::kMostHeld);
        CHECK(image.bytes() == eager);
    }
    SECTION("bytes written directly between landings stay in order with them") {
        land({0, 0}, 1024);
        image.bytes()[1500] = 0x5A;  // a generic store after the landing
        eager[1500] = 0x5A;
        land({4, 0}, 2048);
        CHECK(image.bytes() == eager);
    }
}

// copy_range builds a range from zeros and the held landings inside it when the image was
// never read (the trace's shared images at a streaming CTA's end): it must give the bytes a
// full read gives, for ranges that hold landings, miss them or cut through one.
TEST_CASE("Shared memory image: a range copied without a read equals the read bytes' range", "[model][tensor_copy]") {
    const Scenario s = with_tensor(InitSpec::Kind::random);
    GlobalMemory global(s);
    const TensorMap map = map_of(Swizzle::none);
    auto landed = [&](tmasim::model::SharedMemoryImage& image) {
        for (auto [row, offset] : {std::pair<int64_t, int64_t>{0, 1024}, {8, 1536}, {16, 4096}, {24, 4096}}) {
            TmaRequest r = load(map, {row, 0});
            r.smem_offset = offset;
            image.land_from_init(RequestBytes(r, s.globals.front()).init_landing());
        }
    };
    tmasim::model::SharedMemoryImage read(8192, global);
    landed(read);
    const std::vector<uint8_t> all = read.bytes();
    CHECK(std::count(all.begin(), all.end(), 0) < 8192 - 2048);  // the landings wrote something
    // [1024, 2560) holds two overlapping landings, [4096, 5120) the one left of two, [0, 1024)
    // and [6144, 8192) none, [1024, 2048) cuts the second landing (a full read inside).
    for (auto [offset, n] : {std::pair<size_t, size_t>{1024, 1536}, {4096, 1024}, {0, 1024}, {6144, 2048},
                             {1024, 1024}, {0, 8192}}) {
        tmasim::model::SharedMemoryImage image(8192, global);
        landed(image);
        const std::vector<uint8_t> expected(all.begin() + static_cast<std::ptrdiff_t>(offset),
                                            all.begin() + static_cast<std::ptrdiff_t>(offset + n));
        CHECK(image.copy_range(offset, n) == expected);
        CHECK(image.copy_range(offset, n) == expected);  // the landings are still held after
        CHECK(image.bytes() == all);
    }
}
