#include "model/copy/swizzle_address.h"

namespace tmasim::model {

namespace {
int64_t line_mask(Swizzle mode) {
    switch (mode) {
        case Swizzle::none: return 0;
        case Swizzle::b32: return 1;
        case Swizzle::b64: return 3;
        case Swizzle::b128: return 7;
    }
    return 0;
}
}  // namespace

int64_t swizzled_address(Swizzle mode, int64_t addr) {
    // CuTe Swizzle<B,4,3>: o ^ ((o & (mask << 7)) >> 3).
    int64_t mask = line_mask(mode);
    return addr ^ ((addr & (mask << 7)) >> 3);
}

int64_t swizzle_repeat_bytes(Swizzle mode) {
    int64_t mask = line_mask(mode);
    return mask == 0 ? 0 : (mask + 1) * 128;
}

std::pair<int64_t, int64_t> swizzled_span(Swizzle s, int64_t offset, int64_t bytes) {
    int64_t first = offset, last = offset + bytes - 1;
    if (s != Swizzle::none) {
        first = first / 128 * 128;
        last = last / 128 * 128 + 127;
    }
    return {first, last};
}

}  // namespace tmasim::model
