#include "scenarios/values.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace tmasim {

namespace {

uint32_t float_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
float bits_float(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// splitmix64: a tiny, well-known generator, so random inits are the same everywhere.
uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// float -> integer the way the GPU's cvt.rzi does it: truncate, saturate at the ends of
// the range, NaN to 0. A plain C++ cast of an out-of-range float is undefined behaviour.
int64_t float_to_int64(double v) {
    if (std::isnan(v)) return 0;
    if (v >= 9223372036854775807.0) return INT64_MAX;
    if (v <= -9223372036854775808.0) return INT64_MIN;
    return static_cast<int64_t>(v);
}

}  // namespace

uint16_t float_to_bf16_bits(float f) {
    uint32_t u = float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // quiet NaN
    u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
    return static_cast<uint16_t>(u >> 16);
}

float bf16_bits_to_float(uint16_t h) { return bits_float(static_cast<uint32_t>(h) << 16); }

uint16_t float_to_f16_bits(float f) {
    uint32_t u = float_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t abs = u & 0x7fffffffu;
    if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u); // rounds to inf
    if (abs < 0x38800000u) {
        // Subnormal half (or zero): value = mantissa * 2^-24, rounded to nearest even.
        if (abs < 0x33000000u) return static_cast<uint16_t>(sign);
        uint32_t exp = abs >> 23;
        uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126 - exp;  // 14 + (112 - exp) ... so that result is mant >> (shift - 0)
        uint32_t half_mant = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1);
        uint32_t halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++half_mant;
        return static_cast<uint16_t>(sign | half_mant);
    }
    uint32_t rebias = abs - 0x38000000u;  // exponent 127 -> 15
    uint32_t half = rebias >> 13;
    uint32_t rem = rebias & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
}

float f16_bits_to_float(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    if (exp == 0) {
        float v = std::ldexp(static_cast<float>(mant), -24);
        return sign ? -v : v;
    }
    if (exp == 31) return bits_float(sign | 0x7f800000u | (mant << 13));
    return bits_float(sign | ((exp + 112) << 23) | (mant << 13));
}

float load_element_float(const uint8_t* base, DType t, int64_t e) {
    switch (t) {
    case DType::f32: {
        float f;
        std::memcpy(&f, base + e * 4, 4);
        return f;
    }
    case DType::f16: {
        uint16_t h;
        std::memcpy(&h, base + e * 2, 2);
        return f16_bits_to_float(h);
    }
    case DType::bf16: {
        uint16_t h;
        std::memcpy(&h, base + e * 2, 2);
        return bf16_bits_to_float(h);
    }
    default:
        return static_cast<float>(load_element_int(base, t, e));
    }
}

void store_element_float(uint8_t* base, DType t, int64_t e, float v) {
    switch (t) {
    case DType::f32: std::memcpy(base + e * 4, &v, 4); break;
    case DType::f16: {
        uint16_t h = float_to_f16_bits(v);
        std::memcpy(base + e * 2, &h, 2);
        break;
    }
    case DType::bf16: {
        uint16_t h = float_to_bf16_bits(v);
        std::memcpy(base + e * 2, &h, 2);
        break;
    }
    default:
        store_element_int(base, t, e, float_to_int64(v));
    }
}

int64_t load_element_int(const uint8_t* base, DType t, int64_t e) {
    switch (t) {
    case DType::u8: return base[e];
    case DType::i32: {
        int32_t v;
        std::memcpy(&v, base + e * 4, 4);
        return v;
    }
    default:
        return float_to_int64(load_element_float(base, t, e));
    }
}

void store_element_int(uint8_t* base, DType t, int64_t e, int64_t v) {
    switch (t) {
    case DType::u8: base[e] = static_cast<uint8_t>(v); break;
    case DType::i32: {
        int32_t w = static_cast<int32_t>(static_cast<uint32_t>(v));
        std::memcpy(base + e * 4, &w, 4);
        break;
    }
    default:
        store_element_float(base, t, e, static_cast<float>(v));
    }
}

namespace {

// Room for `size` bytes, none of them written yet. A full-chip input tensor is 276 MB: in
// 4 KB pages its first touch was 67k page faults, a tenth of the model's run; Linux backs
// a range advised MADV_HUGEPAGE with 2 MB pages (where transparent huge pages are
// "madvise", as here, it would not otherwise).
std::vector<uint8_t> reserved_bytes(size_t size) {
    std::vector<uint8_t> bytes;
    bytes.reserve(size);
#ifdef __linux__
    const uintptr_t page = 4096, first = reinterpret_cast<uintptr_t>(bytes.data());
    const uintptr_t start = (first + page - 1) & ~(page - 1), end = (first + size) & ~(page - 1);
    if (size >= (size_t(4) << 20) && end > start)
        madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE);  // a hint: failure is fine
#endif
    return bytes;
}

}  // namespace

void initial_elements(const GlobalTensor& t, int64_t first, int64_t count, uint8_t* out) {
    if (t.init.kind == InitSpec::Kind::file) {
        const int64_t esize = dtype_size(t.type);
        std::memcpy(out, t.init.file_bytes->data() + first * esize, static_cast<size_t>(count * esize));
        return;
    }
    if (t.init.kind == InitSpec::Kind::iota && t.type == DType::f32) {
        // The loop below without its switches per element (a full-chip input is 70M floats).
        // An index below 2^31 converts from 32 bits, which vectorizes; int -> double is exact
        // below 2^53, so both round once, to the same float.
        if (first + count <= INT32_MAX) {
            const int32_t base = static_cast<int32_t>(first);
            int32_t k = 0;
#if defined(__SSE2__)
            // Four at a time (GCC's -O2 left this loop scalar: a twentieth of the 132-CTA
            // run); cvtdq2ps rounds as the scalar conversion does (to nearest even).
            __m128i index = _mm_add_epi32(_mm_set1_epi32(base), _mm_setr_epi32(0, 1, 2, 3));
            const __m128i four = _mm_set1_epi32(4);
            for (; k + 4 <= static_cast<int32_t>(count); k += 4) {
                _mm_storeu_ps(reinterpret_cast<float*>(out + static_cast<int64_t>(k) * 4), _mm_cvtepi32_ps(index));
                index = _mm_add_epi32(index, four);
            }
#endif
            for (; k < static_cast<int32_t>(count); ++k) {
                const float v = static_cast<float>(base + k);
                std::memcpy(out + static_cast<int64_t>(k) * 4, &v, 4);
            }
            return;
        }
        for (int64_t k = 0; k < count; ++k) {
            const float v = static_cast<float>(static_cast<double>(first + k));
            std::memcpy(out + k * 4, &v, 4);
        }
        return;
    }
    // splitmix64 adds its constant to the state once per element: element `first` starts here.
    uint64_t state = t.init.seed + static_cast<uint64_t>(first) * 0x9E3779B97F4A7C15ull;
    for (int64_t k = 0; k < count; ++k) {
        double v = 0;
        switch (t.init.kind) {
        case InitSpec::Kind::iota: v = static_cast<double>(first + k); break;
        case InitSpec::Kind::fill: v = t.init.fill_value; break;
        case InitSpec::Kind::file: break;  // returned above
        case InitSpec::Kind::random: {
            double unit = static_cast<double>(splitmix64(state) >> 11) * (1.0 / 9007199254740992.0);
            if (dtype_is_float(t.type)) {
                v = t.init.min + unit * (t.init.max - t.init.min);
            } else {
                double span = std::floor(t.init.max) - std::ceil(t.init.min) + 1;
                v = std::ceil(t.init.min) + std::floor(unit * span);
            }
            break;
        }
        }
        if (dtype_is_float(t.type)) store_element_float(out, t.type, k, static_cast<float>(v));
        else store_element_int(out, t.type, k, float_to_int64(v));
    }
}

namespace {
// The tensor's declared initial bytes, a block of elements at a time, to `use(data, size)`:
// a full-chip input is hundreds of MB, never needed whole to be appended or hashed.
template <typename Use>
void for_each_initial_block(const GlobalTensor& t, Use&& use) {
    const int64_t n = t.num_elements(), esize = dtype_size(t.type);
    constexpr int64_t kBlockElements = 4096;
    uint8_t block[kBlockElements * 8];
    for (int64_t e = 0; e < n; e += kBlockElements) {
        const int64_t count = std::min(n - e, kBlockElements);
        initial_elements(t, e, count, block);
        use(block, static_cast<size_t>(count * esize));
    }
}
}  // namespace

std::vector<uint8_t> initial_bytes(const GlobalTensor& t) {
    // Appended block by block: no zeroing pass over hundreds of MB first.
    std::vector<uint8_t> bytes = reserved_bytes(static_cast<size_t>(t.size_bytes()));
    for_each_initial_block(t, [&](const uint8_t* data, size_t size) { bytes.insert(bytes.end(), data, data + size); });
    return bytes;
}

void hash_initial_bytes(const GlobalTensor& t, Xxh64& hash) {
    for_each_initial_block(t, [&](const uint8_t* data, size_t size) { hash.update(data, size); });
}

namespace {
constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
constexpr uint64_t kFnvPrime = 0x100000001b3ull;

uint64_t fnv1a64_from(uint64_t h, const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= kFnvPrime;
    }
    return h;
}

std::string fnv_hex_digits(uint64_t h) {
    static const char* digits = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<size_t>(i)] = digits[h & 0xf];
    return out;
}
}  // namespace

std::string fnv1a64_hex(const void* data, size_t n) {
    return fnv_hex_digits(fnv1a64_from(kFnvOffset, static_cast<const uint8_t*>(data), n));
}

std::vector<std::string> fnv1a64_hex_each(const std::vector<std::pair<const uint8_t*, size_t>>& blocks) {
    std::vector<std::string> out(blocks.size());
    size_t b = 0;
    for (; b + 4 <= blocks.size(); b += 4) {
        const uint8_t* p[4] = {blocks[b].first, blocks[b + 1].first, blocks[b + 2].first, blocks[b + 3].first};
        size_t common = blocks[b].second;
        for (int k = 1; k < 4; ++k) common = std::min(common, blocks[b + k].second);
        // Four named chains: in an array GCC kept them in memory, one store and load per byte.
        uint64_t h0 = kFnvOffset, h1 = kFnvOffset, h2 = kFnvOffset, h3 = kFnvOffset;
        const uint8_t *p0 = p[0], *p1 = p[1], *p2 = p[2], *p3 = p[3];
        for (size_t i = 0; i < common; ++i) {
            h0 = (h0 ^ p0[i]) * kFnvPrime;
            h1 = (h1 ^ p1[i]) * kFnvPrime;
            h2 = (h2 ^ p2[i]) * kFnvPrime;
            h3 = (h3 ^ p3[i]) * kFnvPrime;
        }
        const uint64_t h[4] = {h0, h1, h2, h3};
        for (int k = 0; k < 4; ++k)
            out[b + k] = fnv_hex_digits(fnv1a64_from(h[k], p[k] + common, blocks[b + k].second - common));
    }
    for (; b < blocks.size(); ++b) out[b] = fnv1a64_hex(blocks[b].first, blocks[b].second);
    return out;
}

}  // namespace tmasim
