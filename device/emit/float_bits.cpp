#include "device/emit/float_bits.h"

#include <cstring>

// The conversions are one macro body so that the device text and the host twin cannot
// drift apart. QUAL is the function qualifier, AS_UINT / AS_FLOAT the bit casts of the side
// that compiles it. Only block comments may appear inside (the body is stringified).
#define TMASIM_FLOAT_BITS_BODY(QUAL, AS_UINT, AS_FLOAT)                                     \
    QUAL unsigned short f32_to_f16_bits_rne(float f) {                                     \
        const unsigned x = AS_UINT(f);                                                     \
        const unsigned sign = (x >> 16) & 0x8000u;                                         \
        const unsigned exp = (x >> 23) & 0xffu;                                            \
        unsigned mant = x & 0x7fffffu;                                                     \
        if (exp == 0xffu) /* inf stays inf; any NaN becomes the canonical quiet NaN */      \
            return (unsigned short)(sign | (mant ? 0x7e00u : 0x7c00u));                 \
        const int e = (int)exp - 127 + 15;                                                 \
        if (e >= 31) return (unsigned short)(sign | 0x7c00u);                              \
        if (e <= 0) { /* f16 subnormal: units of 2^-24 */                                  \
            if (e < -10) return (unsigned short)sign;                                      \
            mant |= 0x800000u;                                                             \
            const unsigned shift = (unsigned)(14 - e);                                     \
            unsigned h = mant >> shift;                                                    \
            const unsigned rem = mant & ((1u << shift) - 1u);                              \
            const unsigned half = 1u << (shift - 1u);                                      \
            if (rem > half || (rem == half && (h & 1u))) h += 1u;                          \
            return (unsigned short)(sign | h);                                             \
        }                                                                                  \
        unsigned h = ((unsigned)e << 10) | (mant >> 13);                                   \
        const unsigned rem = mant & 0x1fffu;                                               \
        if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h += 1u; /* may carry to inf */ \
        return (unsigned short)(sign | h);                                                 \
    }                                                                                      \
    QUAL unsigned short f32_to_bf16_bits_rne(float f) {                                    \
        const unsigned x = AS_UINT(f);                                                     \
        if ((x & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((x >> 16) | 0x40u);   \
        return (unsigned short)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);                   \
    }                                                                                      \
    QUAL float f16_bits_to_f32(unsigned short h) {                                         \
        const unsigned sign = ((unsigned)h & 0x8000u) << 16;                               \
        const unsigned exp = ((unsigned)h >> 10) & 0x1fu;                                  \
        unsigned mant = (unsigned)h & 0x3ffu;                                              \
        unsigned bits;                                                                     \
        if (exp == 0x1fu) {                                                                \
            bits = sign | 0x7f800000u | (mant << 13);                                      \
        } else if (exp == 0u) {                                                            \
            if (mant == 0u) {                                                              \
                bits = sign;                                                               \
            } else { /* subnormal: normalise into an f32 normal */                         \
                unsigned e = 113u;                                                         \
                while (!(mant & 0x400u)) { mant <<= 1; e -= 1u; }                          \
                bits = sign | (e << 23) | ((mant & 0x3ffu) << 13);                        \
            }                                                                              \
        } else {                                                                           \
            bits = sign | ((exp + 112u) << 23) | (mant << 13);                             \
        }                                                                                  \
        return AS_FLOAT(bits);                                                             \
    }                                                                                      \
    QUAL float bf16_bits_to_f32(unsigned short h) { return AS_FLOAT((unsigned)h << 16); }

#define TMASIM_STRINGIFY(...) #__VA_ARGS__
#define TMASIM_STRINGIFY_EXPANDED(...) TMASIM_STRINGIFY(__VA_ARGS__)

namespace tmasim::device {

namespace {

unsigned host_as_uint(float f) {
    unsigned u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}
float host_as_float(unsigned u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

namespace twin {
TMASIM_FLOAT_BITS_BODY(inline, host_as_uint, host_as_float)
}  // namespace twin

constexpr std::string_view kDeviceSource = TMASIM_STRINGIFY_EXPANDED(
    TMASIM_FLOAT_BITS_BODY(__device__ __forceinline__, __float_as_uint, __uint_as_float));

}  // namespace

std::string_view float_bits_device_source() { return kDeviceSource; }

uint16_t twin_f32_to_f16_bits_rne(float f) { return twin::f32_to_f16_bits_rne(f); }
uint16_t twin_f32_to_bf16_bits_rne(float f) { return twin::f32_to_bf16_bits_rne(f); }
float twin_f16_bits_to_f32(uint16_t h) { return twin::f16_bits_to_f32(h); }
float twin_bf16_bits_to_f32(uint16_t h) { return twin::bf16_bits_to_f32(h); }

}  // namespace tmasim::device
