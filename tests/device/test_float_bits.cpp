// The device's float conversions (compiled here as host twins of the same text) agree bit
// for bit with the scenarios library's, which the model uses.
#include <catch2/catch.hpp>

#include <cstring>

#include "device/emit/float_bits.h"
#include "scenarios/values.h"

using namespace tmasim::device;

namespace {
float from_bits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}
}  // namespace

TEST_CASE("device f16/bf16 rounding matches the model's", "[device][float]") {
    int64_t mismatches = 0;
    auto check = [&](uint32_t u) {
        const float f = from_bits(u);
        if (twin_f32_to_f16_bits_rne(f) != tmasim::float_to_f16_bits(f) ||
            twin_f32_to_bf16_bits_rne(f) != tmasim::float_to_bf16_bits(f)) {
            if (++mismatches <= 5) UNSCOPED_INFO("mismatch for f32 bits " << std::hex << u);
        }
    };
    // A stride coprime to 2^32 visits every exponent and mantissa pattern class.
    for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 65521) check(static_cast<uint32_t>(u));
    // Exact ties and the edges of the f16 range.
    for (uint32_t u : {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u,
                       0x477fe000u, 0x477ff000u, 0x477fefffu, 0x38800000u, 0x387fffffu, 0x33000000u,
                       0x33000001u, 0x33800000u, 0x3f801000u, 0x3f803000u, 0x3f808000u, 0x3f818000u})
        check(u);
    CHECK(mismatches == 0);
}

TEST_CASE("device f16/bf16 widening matches the model's", "[device][float]") {
    for (uint32_t h = 0; h < 65536; ++h) {
        const auto bits = static_cast<uint16_t>(h);
        const float a = twin_f16_bits_to_f32(bits), b = tmasim::f16_bits_to_float(bits);
        const float c = twin_bf16_bits_to_f32(bits), d = tmasim::bf16_bits_to_float(bits);
        if (std::memcmp(&a, &b, 4) != 0 || std::memcmp(&c, &d, 4) != 0) FAIL("bits " << h);
    }
    SUCCEED();
}
