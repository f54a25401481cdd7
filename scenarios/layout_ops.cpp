#include "scenarios/layout_ops.h"

#include <algorithm>
#include <set>

namespace tmasim {

LayoutOpView layout_op_view(const Scenario& sc, const Op& op, bool to_side) {
    const TileDecl& tile = *sc.find_tile(to_side ? op.to_tile : op.tile);
    LayoutOpView v;
    v.layout = sc.tile_layout(tile.name);
    v.esize = dtype_size(tile.type);
    const std::vector<int64_t> shape = tile.shape;
    if (!op.global.empty()) {
        const std::vector<int64_t> strides = op.strides;
        v.offset = [strides](const Coords& c) {
            int64_t o = 0;
            for (size_t d = 0; d < c.size(); ++d) o += c[d] * strides[d];
            return o;
        };
    } else if (!op.shared_layout.empty()) {
        const SharedLayoutSpec spec = sc.find_layout(op.shared_layout)->smem;
        const int64_t esize = v.esize;
        v.offset = [spec, shape, esize](const Coords& c) { return shared_offset(spec, shape, esize, c); };
    } else {
        v.offset = [shape](const Coords& c) {
            int64_t o = 0;
            for (size_t d = 0; d < c.size(); ++d) o = o * shape[d] + c[d];
            return o;
        };
    }
    v.plan = plan_layout_access(v.layout, v.esize, v.offset);
    Coords last(shape.size(), 0);
    for (size_t d = 0; d < shape.size(); ++d) last[d] = shape[d] - 1;
    if (!op.global.empty()) {
        v.max_offset = v.offset(last);  // strides are non-negative
    } else {
        int64_t n = 1;
        for (int64_t s : shape) n *= s;
        v.max_offset = n - 1;  // a shared layout is a permutation of the tile
    }
    return v;
}

bool conversion_is_trivial(const Scenario& sc, const Op& op) {
    const LinearLayout a = sc.tile_layout(op.tile), b = sc.tile_layout(op.to_tile);
    for (int64_t w = 0; w < a.num_warps(); ++w)
        for (int64_t l = 0; l < a.num_lanes(); ++l) {
            std::set<int64_t> ea, eb;
            for (int64_t r = 0; r < a.num_regs(); ++r) ea.insert(a.flat(a.element(r, l, w)));
            for (int64_t r = 0; r < b.num_regs(); ++r) eb.insert(b.flat(b.element(r, l, w)));
            if (ea != eb) return false;
        }
    return true;
}

}  // namespace tmasim
