// initial_elements and hash_initial_bytes (scenarios/values.h): any range of a tensor's
// initial contents, made on its own, equals that range of initial_bytes, for every init
// kind and element type; the model reads large inputs this way and never holds them whole.
#include <catch2/catch.hpp>

#include <vector>

#include "scenarios/values.h"
#include "scenarios/xxh64.h"

using namespace tmasim;

TEST_CASE("any range of initial elements equals that range of initial_bytes", "[scenarios]") {
    GlobalTensor t;
    t.shape = {3, 4099};  // crosses initial_bytes' 4096-element blocks
    struct Case {
        DType type;
        InitSpec::Kind kind;
    };
    const std::vector<Case> cases{{DType::f32, InitSpec::Kind::iota},   {DType::f16, InitSpec::Kind::iota},
                                  {DType::bf16, InitSpec::Kind::fill},  {DType::f32, InitSpec::Kind::random},
                                  {DType::i32, InitSpec::Kind::random}, {DType::u8, InitSpec::Kind::random}};
    for (const Case& c : cases) {
        t.type = c.type;
        t.init.kind = c.kind;
        t.init.seed = 11;
        t.init.min = -5;
        t.init.max = 9;
        t.init.fill_value = 1.25;
        const std::vector<uint8_t> whole = initial_bytes(t);
        const int64_t esize = dtype_size(t.type);
        for (int64_t first : {int64_t(0), int64_t(1), int64_t(4095), int64_t(7000)}) {
            for (int64_t count : {int64_t(1), int64_t(5), int64_t(4097)}) {
                if (first + count > t.num_elements()) continue;
                INFO("type " << static_cast<int>(c.type) << " init " << static_cast<int>(c.kind) << " first "
                             << first << " count " << count);
                std::vector<uint8_t> part(static_cast<size_t>(count * esize));
                initial_elements(t, first, count, part.data());
                CHECK(std::equal(part.begin(), part.end(), whole.begin() + first * esize));
            }
        }
        Xxh64 hash;
        hash_initial_bytes(t, hash);
        CHECK(hash.digest() == xxh64(whole.data(), whole.size()));
    }
}
