#include "model/copy/wgmma_layout.h"

#include "model/copy/swizzle_address.h"

namespace tmasim::model {

int64_t wgmma_operand_offset(Swizzle mode, int64_t k_total, int64_t row, int64_t k) {
    if (mode == Swizzle::none) {
        const int64_t core = (row / 8) * (k_total / 8) + k / 8;
        return core * 128 + (row % 8) * 16 + (k % 8) * kWgmmaElementBytes;
    }
    const int64_t row_bytes = k_total * kWgmmaElementBytes;  // == the swizzle width
    return swizzled_address(mode, row * row_bytes + k * kWgmmaElementBytes);
}

std::pair<int, int> wgmma_fragment_coord(int warp_in_group, int lane, int i) {
    const int row = 16 * warp_in_group + lane / 4 + 8 * ((i / 2) % 2);
    const int col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
    return {row, col};
}

}  // namespace tmasim::model
