// Checks of the layout ops (layout.*, convert_layout): names, types and shapes agree, the
// shared layout fits the tile and its buffer, and each global view stays in its tensor
// with its base aligned to the vector the layout allows.
#include <stdexcept>

#include "scenarios/layout_ops.h"
#include "scenarios/layout_reduce.h"
#include "scenarios/validator_util.h"

namespace tmasim {
namespace {

const TileDecl& tile_named(const Scenario& sc, const Op& op, const std::string& name, const std::string& k) {
    const TileDecl* t = sc.find_tile(name);
    if (!t) throw ScenarioError(op.loc, op_key(op, k), "no tile named '" + name + "'; declared: " + join_names(names_of(sc.tiles)));
    return *t;
}

// A shared buffer holding `tile` in `layout_name` (empty: row-major).
void check_shared_side(const Scenario& sc, const Op& op, const TileDecl& tile, const std::string& k) {
    const SharedBuffer* b = sc.find_shared(op.buffer.name);
    if (!b) return;  // the generic check names it
    if (b->type != tile.type)
        throw ScenarioError(op.buffer.loc, op_key(op, k), "buffer " + b->name + " holds " + to_string(b->type) +
                                                              ", the tile " + tile.name + " " + to_string(tile.type) +
                                                              "; allowed: a buffer of the tile's type");
    if (b->num_elements() < tile.num_elements())
        throw ScenarioError(op.buffer.loc, op_key(op, k), "buffer " + b->name + " has " + std::to_string(b->num_elements()) +
                                                              " elements, the tile " + std::to_string(tile.num_elements()) +
                                                              "; allowed: a buffer at least as large as the tile");
    if (op.shared_layout.empty()) return;
    const LayoutDecl* l = sc.find_layout(op.shared_layout);
    if (!l || !l->is_shared)
        throw ScenarioError(op.loc, op_key(op, "layout"), "no shared layout named '" + op.shared_layout +
                                                              "'; allowed: a swizzled_shared or nvmma_shared layout of layouts");
    try {
        check_shared_layout(l->smem, tile.shape, dtype_size(tile.type));
    } catch (const std::invalid_argument& e) {
        throw ScenarioError(op.loc, op_key(op, "layout"), op.shared_layout + " cannot hold tile " + tile.name + ": " + e.what());
    }
}

// layout.reduce: the destination is the source's slice; warps that split the axis need a
// scratch of one f32 partial per warp and destination element.
void check_reduce(const Scenario& sc, const Op& op) {
    tile_named(sc, op, op.to_tile, "to");
    ReducePlan p;
    try {
        p = plan_reduce(sc, op);
    } catch (const std::invalid_argument& e) {
        throw ScenarioError(op.loc, op_key(op, "to"), e.what());
    }
    if (p.warp_bits.empty()) return;
    const int64_t need = p.src.num_warps() * p.out_elements;
    const SharedBuffer* b = sc.find_shared(op.buffer.name);
    if (!b || b->type != DType::f32 || b->num_elements() < need)
        throw ScenarioError(op.loc, op_key(op, "scratch"),
                            "warps split axis " + std::to_string(op.axis) + ", so partials go through shared memory; "
                            "allowed: an f32 buffer of at least " + std::to_string(need) + " elements (warps x " +
                            op.to_tile + "'s elements)");
}

}  // namespace

void check_layout_op(const Scenario& sc, const Op& op, const std::vector<std::string>& scope) {
    if (op_family(op.kind) != OpFamily::layout) return;
    if (op.by.kind != Selector::Kind::all)
        throw ScenarioError(op.loc, op_key(op, "by"), to_string(op.kind) +
                                                          " moves a tile spread over every thread of the CTA; allowed: all");
    const TileDecl& tile = tile_named(sc, op, op.tile, "tile");
    if (!op.global.empty()) {
        const GlobalTensor* g = sc.find_global(op.global);
        if (!g) return;  // the generic check names it
        if (g->type != tile.type)
            throw ScenarioError(op.loc, op_key(op, "global"), op.global + " holds " + to_string(g->type) + ", the tile " +
                                                                  tile.name + " " + to_string(tile.type));
        if (op.strides.size() != tile.shape.size())
            throw ScenarioError(op.loc, op_key(op, "strides"), std::to_string(op.strides.size()) + " strides for a rank-" +
                                                                   std::to_string(tile.shape.size()) + " tile; allowed: one per dimension");
        check_expr_vars(op.base, scope, op_key(op, "base"));
        auto mask_scope = scope;
        mask_scope.insert(mask_scope.end(), {"i0", "off"});
        if (tile.shape.size() == 2) mask_scope.push_back("i1");
        check_expr_vars(op.mask, mask_scope, op_key(op, "mask"));
        return;
    }
    if (op.kind == OpKind::layout_reduce) return check_reduce(sc, op);
    check_shared_side(sc, op, tile, op.kind == OpKind::convert_layout ? "scratch" : "buffer");
    if (op.kind != OpKind::convert_layout) return;
    const TileDecl& to = tile_named(sc, op, op.to_tile, "to");
    if (to.type != tile.type || to.shape != tile.shape)
        throw ScenarioError(op.loc, op_key(op, "to"), "tile " + to.name + " differs from " + tile.name +
                                                          " in type or shape; allowed: the same type and shape, another layout");
    if (to.name == tile.name) throw ScenarioError(op.loc, op_key(op, "to"), "converts " + to.name + " into itself");
}

void check_layout_dynamic(const Scenario& sc, const Op& op, const Expr::IntEnv& env,
                          std::map<int, std::pair<int64_t, int64_t>>& cache) {
    if (op.global.empty()) return;
    const GlobalTensor& g = *sc.find_global(op.global);
    const int64_t base = op.base.eval_int(env);
    auto it = cache.find(op.id);
    if (it == cache.end()) {
        const LayoutOpView view = layout_op_view(sc, op);
        it = cache.emplace(op.id, std::make_pair(view.plan.vec, view.max_offset)).first;
    }
    const int64_t vec = it->second.first, vec_bytes = vec * dtype_size(g.type), max_offset = it->second.second;
    if (base % vec != 0)
        throw ScenarioError(op.base.loc(), op_key(op, "base"),
                            "\"" + op.base.text() + "\" is element " + std::to_string(base) + " at cta " +
                                std::to_string(env.at("cta")) + "; the layout moves " + std::to_string(vec_bytes) +
                                "-byte vectors, so allowed: a multiple of " + std::to_string(vec));
    if (op.mask.empty() && (base < 0 || base + max_offset >= g.num_elements()))
        throw ScenarioError(op.base.loc(), op_key(op, "base"),
                            "the tile reaches elements " + std::to_string(base) + ".." + std::to_string(base + max_offset) +
                                " of " + g.name + " (" + std::to_string(g.num_elements()) + " elements) at cta " +
                                std::to_string(env.at("cta")) + "; allowed: inside the tensor, or a mask");
}

}  // namespace tmasim
