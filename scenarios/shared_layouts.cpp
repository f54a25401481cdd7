#include "scenarios/shared_layouts.h"

#include <stdexcept>

namespace tmasim {
namespace {

// The contiguous (inner) and the strided (outer) dimension of a 1-D or 2-D tile.
void inner_outer(const SharedLayoutSpec& s, size_t rank, size_t& inner, size_t& outer) {
    if (rank == 1) {
        inner = outer = 0;
        return;
    }
    if (s.kind == SharedLayoutSpec::Kind::nvmma) {
        inner = s.transposed ? 0 : 1;
    } else {
        inner = s.order.empty() ? rank - 1 : size_t(s.order[0]);
    }
    outer = 1 - inner;
}

}  // namespace

void check_shared_layout(const SharedLayoutSpec& s, const std::vector<int64_t>& shape, int64_t element_bytes) {
    if (shape.empty() || shape.size() > 2) throw std::invalid_argument("shared layouts hold 1-D and 2-D tiles");
    if (s.kind == SharedLayoutSpec::Kind::swizzled && !s.order.empty()) {
        bool seen[2] = {false, false};
        for (int64_t d : s.order)
            if (d >= int64_t(shape.size()) || seen[d] || !(seen[d] = true))
                throw std::invalid_argument("order is not a permutation of the tile's " + std::to_string(shape.size()) +
                                            " dimension(s)");
    }
    size_t inner = 0, outer = 0;
    inner_outer(s, shape.size(), inner, outer);
    const int64_t cols = shape[inner];
    if (s.kind == SharedLayoutSpec::Kind::swizzled) {
        if (!s.order.empty() && s.order.size() != shape.size())
            throw std::invalid_argument("order has " + std::to_string(s.order.size()) + " entries for a rank-" +
                                        std::to_string(shape.size()) + " tile");
        for (int64_t v : {s.vec, s.per_phase, s.max_phase})
            if (!is_power_of_two(v)) throw std::invalid_argument(std::to_string(v) + " is not a power of two");
        if (shape.size() == 2 && s.vec * s.max_phase > cols)
            throw std::invalid_argument("vec * max_phase = " + std::to_string(s.vec * s.max_phase) +
                                        " elements reach past a row of " + std::to_string(cols) +
                                        "; allowed: at most the tile's inner extent");
        return;
    }
    if (s.swizzle_bytes != 32 && s.swizzle_bytes != 64 && s.swizzle_bytes != 128)
        throw std::invalid_argument("swizzle_bytes " + std::to_string(s.swizzle_bytes) + "; allowed: 32, 64, 128");
    if (s.element_bits != element_bytes * 8)
        throw std::invalid_argument("element_bits " + std::to_string(s.element_bits) + " for a tile of " +
                                    std::to_string(element_bytes * 8) + "-bit elements");
    if (shape.size() != 2) throw std::invalid_argument("an NVMMA layout holds a 2-D tile");
    if ((cols * element_bytes) % s.swizzle_bytes != 0)
        throw std::invalid_argument("the tile's inner extent is " + std::to_string(cols * element_bytes) +
                                    " bytes; allowed: a multiple of swizzle_bytes " + std::to_string(s.swizzle_bytes));
}

int64_t shared_offset(const SharedLayoutSpec& s, const std::vector<int64_t>& shape, int64_t esize, const Coords& c) {
    size_t inner = 0, outer = 0;
    inner_outer(s, shape.size(), inner, outer);
    if (shape.size() == 1) return c[0];
    const int64_t row = c[outer], col = c[inner], cols = shape[inner], rows = shape[outer];
    if (s.kind == SharedLayoutSpec::Kind::swizzled) {
        const int64_t phase = (row / s.per_phase) % s.max_phase;
        return row * cols + (((col / s.vec) ^ phase) * s.vec + col % s.vec);
    }
    // NVMMA: the tile is cut into column blocks one swizzle row wide, each stored as a
    // [rows, swizzle_bytes] stack; within it the 16-byte chunk of a row is XORed with the
    // row's phase: 128B: row % 8; 64B: (row / 2) % 4; 32B: (row / 4) % 2.
    const int64_t row_elems = s.swizzle_bytes / esize;
    const int64_t block = col / row_elems, byte = (col % row_elems) * esize;
    const int64_t per_phase = 128 / s.swizzle_bytes, max_phase = s.swizzle_bytes / 16;
    const int64_t chunk = (byte / 16) ^ ((row / per_phase) % max_phase);
    const int64_t offset_bytes = block * rows * s.swizzle_bytes + row * s.swizzle_bytes + chunk * 16 + byte % 16;
    return offset_bytes / esize;
}

std::vector<int64_t> shared_offsets(const SharedLayoutSpec& s, const std::vector<int64_t>& shape, int64_t esize) {
    std::vector<int64_t> out;
    if (shape.size() == 1) {
        for (int64_t i = 0; i < shape[0]; ++i) out.push_back(shared_offset(s, shape, esize, {i}));
        return out;
    }
    for (int64_t r = 0; r < shape[0]; ++r)
        for (int64_t c = 0; c < shape[1]; ++c) out.push_back(shared_offset(s, shape, esize, {r, c}));
    return out;
}

}  // namespace tmasim
