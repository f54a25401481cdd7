#include "scenarios/xxh64.h"

#include <cstring>

namespace tmasim {
namespace {

constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ull;
constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ull;

uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// The specification reads little-endian words; so does every host tmasim builds on (x86-64,
// aarch64 Linux), and memcpy keeps unaligned reads defined.
uint64_t read64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

uint32_t read32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

uint64_t round_lane(uint64_t acc, uint64_t input) { return rotl(acc + input * kPrime2, 31) * kPrime1; }

uint64_t merge_lane(uint64_t acc, uint64_t lane) { return (acc ^ round_lane(0, lane)) * kPrime1 + kPrime4; }

void consume_stripes(uint64_t lanes[4], const uint8_t* p, size_t stripes) {
    uint64_t v0 = lanes[0], v1 = lanes[1], v2 = lanes[2], v3 = lanes[3];
    for (size_t s = 0; s < stripes; ++s, p += 32) {
        v0 = round_lane(v0, read64(p));
        v1 = round_lane(v1, read64(p + 8));
        v2 = round_lane(v2, read64(p + 16));
        v3 = round_lane(v3, read64(p + 24));
    }
    lanes[0] = v0, lanes[1] = v1, lanes[2] = v2, lanes[3] = v3;
}

}  // namespace

void Xxh64::update(const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    total_ += n;
    if (pending_count_ > 0) {
        const size_t take = n < 32 - pending_count_ ? n : 32 - pending_count_;
        std::memcpy(pending_ + pending_count_, p, take);
        pending_count_ += take, p += take, n -= take;
        if (pending_count_ < 32) return;
        consume_stripes(lanes_, pending_, 1);
        pending_count_ = 0;
    }
    consume_stripes(lanes_, p, n / 32);
    p += n / 32 * 32;
    n %= 32;
    std::memcpy(pending_, p, n);
    pending_count_ = n;
}

uint64_t Xxh64::digest() const {
    uint64_t h;
    if (total_ >= 32) {
        h = rotl(lanes_[0], 1) + rotl(lanes_[1], 7) + rotl(lanes_[2], 12) + rotl(lanes_[3], 18);
        for (uint64_t lane : lanes_) h = merge_lane(h, lane);
    } else {
        h = kPrime5;  // seed 0
    }
    h += total_;
    const uint8_t* p = pending_;
    size_t n = pending_count_;
    for (; n >= 8; n -= 8, p += 8) h = rotl(h ^ round_lane(0, read64(p)), 27) * kPrime1 + kPrime4;
    if (n >= 4) {
        h = rotl(h ^ (static_cast<uint64_t>(read32(p)) * kPrime1), 23) * kPrime2 + kPrime3;
        n -= 4, p += 4;
    }
    for (; n > 0; --n, ++p) h = rotl(h ^ (*p * kPrime5), 11) * kPrime1;
    h ^= h >> 33;
    h *= kPrime2;
    h ^= h >> 29;
    h *= kPrime3;
    h ^= h >> 32;
    return h;
}

uint64_t xxh64(const void* data, size_t n) {
    Xxh64 h;
    h.update(data, n);
    return h.digest();
}

std::string hex16(uint64_t value) {
    static const char digits[] = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 15; i >= 0; --i, value >>= 4) out[static_cast<size_t>(i)] = digits[value & 0xf];
    return out;
}

std::string xxh64_hex(const void* data, size_t n) { return hex16(xxh64(data, n)); }

}  // namespace tmasim
