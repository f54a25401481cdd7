#pragma once
// Shared-memory layouts of a tile (Gluon's SwizzledSharedLayout and NVMMASharedLayout):
// where in a shared buffer each element of the tile lives. Both XOR the 16-byte (or
// `vec`-element) chunk index of a row with a phase taken from the row number, so that
// the rows' chunk 0 lands in different banks.
#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/linear_layout.h"

namespace tmasim {

struct SharedLayoutSpec {
    enum class Kind { swizzled, nvmma };
    Kind kind = Kind::swizzled;
    // swizzled: element (row, col) of a 2-D tile with order [inner, outer] goes to
    // row * cols + (((col / vec) ^ ((row / per_phase) % max_phase)) * vec + col % vec).
    int64_t vec = 1, per_phase = 1, max_phase = 1;
    std::vector<int64_t> order;  // fastest dimension first; empty: the last dimension fastest
    // nvmma: the tensor-core/TMA swizzle of `swizzle_bytes` (32, 64, 128) rows over
    // elements of `element_bits`; transposed: dimension 0 is the contiguous one.
    int64_t swizzle_bytes = 128, element_bits = 16;
    bool transposed = false;
};

// Throws std::invalid_argument when `spec` cannot hold a tile of `shape` with elements of
// `element_bytes` (a phase reaching past the row, an inner extent not a whole number of
// swizzle rows, a different element width), naming the rule.
void check_shared_layout(const SharedLayoutSpec& spec, const std::vector<int64_t>& shape, int64_t element_bytes);
// The element offset in the buffer of the tile element `c`.
int64_t shared_offset(const SharedLayoutSpec& spec, const std::vector<int64_t>& shape, int64_t element_bytes,
                      const Coords& c);
// Element offsets of every tile element, in row-major tile order.
std::vector<int64_t> shared_offsets(const SharedLayoutSpec& spec, const std::vector<int64_t>& shape,
                                    int64_t element_bytes);

}  // namespace tmasim
