#include "model/swizzle_address.h"

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

}  // namespace tmasim::model
