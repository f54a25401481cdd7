#pragma once
// layout.reduce: how a 2-D register tile is reduced along one axis into a 1-D tile in its
// SliceLayout, in the three steps Triton's reductions take: each thread combines its own
// registers, each warp combines across the lanes that split the axis (butterfly shuffles,
// one round per lane bit along it), and warps that split the axis exchange partials through
// shared memory (each warp writes, a barrier, each reads the others', a barrier). The
// order of every combination is fixed here, so both backends produce the same bits.
#include <cstdint>
#include <vector>

#include "scenarios/ir.h"

namespace tmasim {

struct ReducePlan {
    LinearLayout src, dst;
    // groups[r']: the source registers destination register r' combines, increasing.
    std::vector<std::vector<int64_t>> groups;
    std::vector<int> lane_bits, warp_bits;  // lane and warp index bits along the axis, increasing
    int64_t out_elements = 0;               // elements of the destination tile
    // The warps whose partials warp `w` combines, increasing (w itself among them).
    std::vector<int64_t> warp_group(int64_t w) const;
};

// Throws std::invalid_argument naming what does not fit (types, shapes, the destination's
// layout not the slice of the source's, a basis across both dimensions).
ReducePlan plan_reduce(const Scenario& sc, const Op& op);

}  // namespace tmasim
