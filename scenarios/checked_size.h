#pragma once
// Products of sizes (a shape's element count, its bytes, a grid's CTAs) multiplied with
// overflow checks. Each factor is bounded where it is read, their product is not: a u8 tensor
// of [2^32, 2^32] wrapped int64 to 0 bytes and validated, a grid of 65535^3 CTAs ran as one.
// The loaders refuse a product past its limit at the key that wrote it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tmasim {

// The product of `factors` (each >= 0), or nullopt when it exceeds `limit` or int64.
inline std::optional<int64_t> checked_product(const std::vector<int64_t>& factors, int64_t limit) {
    int64_t n = 1;
    for (int64_t f : factors)
        if (__builtin_mul_overflow(n, f, &n) || n > limit) return std::nullopt;
    return n;
}

// "[4294967296, 4294967296]", for messages.
inline std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

}  // namespace tmasim
