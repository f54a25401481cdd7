#include "scenarios/layout_reduce.h"

#include <memory>
#include <stdexcept>

namespace tmasim {

namespace {

int nonzero_dims(const Coords& b) {
    int n = 0;
    for (int64_t v : b) n += v != 0;
    return n;
}

}  // namespace

std::vector<int64_t> ReducePlan::warp_group(int64_t w) const {
    int64_t axis_mask = 0;
    for (int b : warp_bits) axis_mask |= int64_t(1) << b;
    std::vector<int64_t> out;
    for (int64_t v = 0; v < dst.num_warps(); ++v)
        if ((v & ~axis_mask) == (w & ~axis_mask)) out.push_back(v);
    return out;
}

ReducePlan plan_reduce(const Scenario& sc, const Op& op) {
    const TileDecl& from = *sc.find_tile(op.tile);
    const TileDecl& to = *sc.find_tile(op.to_tile);
    if (from.shape.size() != 2) throw std::invalid_argument("layout.reduce reduces a 2-D tile");
    if (from.type != DType::f32 || to.type != DType::f32)
        throw std::invalid_argument("layout.reduce combines f32 tiles (one 32-bit shuffle per value)");
    std::vector<int64_t> kept = from.shape;
    kept.erase(kept.begin() + op.axis);
    if (to.shape != kept)
        throw std::invalid_argument("tile " + to.name + " must have the shape of " + from.name + " without dimension " +
                                    std::to_string(op.axis));
    ReducePlan p;
    p.src = sc.tile_layout(from.name);
    p.dst = sc.tile_layout(to.name);
    RegLayoutSpec slice;
    slice.kind = RegLayoutSpec::Kind::slice;
    slice.slice_dim = op.axis;
    slice.parent = std::make_shared<RegLayoutSpec>(sc.find_layout(from.layout)->reg);
    if (to_linear(slice, to.shape) != p.dst)
        throw std::invalid_argument("tile " + to.name + "'s layout is not SliceLayout(" + std::to_string(op.axis) +
                                    ", " + from.layout + ") (its linear form differs)");
    for (const auto* set : {&p.src.reg, &p.src.lane, &p.src.warp})
        for (const Coords& b : *set)
            if (nonzero_dims(b) > 1)
                throw std::invalid_argument("a basis of " + from.layout + " moves along both dimensions");
    const size_t keep_dim = 1 - size_t(op.axis);
    p.groups.resize(size_t(p.dst.num_regs()));
    for (int64_t r = 0; r < p.src.num_regs(); ++r) {
        const int64_t c = p.src.element(r, 0, 0)[keep_dim];
        int64_t target = -1;
        for (int64_t q = 0; q < p.dst.num_regs() && target < 0; ++q)
            if (p.dst.element(q, 0, 0)[0] == c) target = q;
        if (target < 0) throw std::invalid_argument("a register of " + from.name + " has no place in " + to.name);
        p.groups[size_t(target)].push_back(r);
    }
    for (size_t i = 0; i < p.src.lane.size(); ++i)
        if (p.src.lane[i][size_t(op.axis)] != 0) p.lane_bits.push_back(int(i));
    for (size_t i = 0; i < p.src.warp.size(); ++i)
        if (p.src.warp[i][size_t(op.axis)] != 0) p.warp_bits.push_back(int(i));
    p.out_elements = to.num_elements();
    return p;
}

}  // namespace tmasim
