#pragma once
// What a layout op (layout.*, convert_layout) moves, as both backends and the validator
// see it: the tile's linear layout, where each tile element lives in memory, and the
// vector plan of the warp instructions (scenarios/layout_access.h).
#include <cstdint>
#include <functional>

#include "scenarios/ir.h"
#include "scenarios/layout_access.h"

namespace tmasim {

struct LayoutOpView {
    LinearLayout layout;  // of the tile the op reads or writes
    int64_t esize = 4;
    // Element offset of a tile element: global ops relative to `base` (sum of coordinate
    // times stride); shared ops in the buffer (its shared layout, or row-major).
    std::function<int64_t(const Coords&)> offset;
    LayoutAccessPlan plan;
    int64_t max_offset = 0;  // the largest offset of any element
};

// The view of `op` (a validated layout op). For convert_layout, `to_side` false is the
// store of `tile` into the scratch buffer, true the load of `to` from it.
LayoutOpView layout_op_view(const Scenario& sc, const Op& op, bool to_side = false);

// Whether convert_layout's two tiles hold the same elements in every thread (registers
// may be permuted): then it moves nothing through shared memory, as Gluon's trivial
// conversions.
bool conversion_is_trivial(const Scenario& sc, const Op& op);

}  // namespace tmasim
