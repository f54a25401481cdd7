// Load-time checks of the cluster, tensor-map and wgmma ops. Each undefined-behaviour
// operand PTX names is refused here, with the section, so both backends only ever see
// programs whose remaining hazards are the ones the model reports at run time.
#include "scenarios/validator_util.h"

namespace tmasim {
namespace {

const TensorMap& map_in_global(const Scenario& sc, const Op& op) {
    const TensorMap* m = sc.find_map(op.map);
    if (!m) throw ScenarioError(op.loc, op_key(op, "map"), "no tensor map named '" + op.map + "'; declared: " +
                                                               join_names(names_of(sc.tensormaps)));
    if (m->location != MapLocation::global)
        throw ScenarioError(op.loc, op_key(op, "map"), "map " + m->name + " is a __grid_constant__ kernel parameter; " +
                                                           to_string(op.kind) + " needs one in global memory; "
                                                           "allowed: a map declared with location: global");
    return *m;
}

// tensormap.replace writes one field of a tiled map; PTX leaves an invalid new value
// undefined (PTX 9.7.9.28, "tensormap new_val validity"), so it is refused.
void check_replace(const Scenario& sc, const Op& op, const TensorMap& m) {
    const GlobalTensor* t = sc.find_global(m.tensor);
    if (op.field == MapField::global_address) {
        const GlobalTensor* g = sc.find_global(op.global);
        if (!g) throw ScenarioError(op.loc, op_key(op, "global"), "no global tensor named '" + op.global +
                                                                      "'; declared: " + join_names(names_of(sc.globals)));
        if (g->type != t->type)
            throw ScenarioError(op.loc, op_key(op, "global"), g->name + " holds " + to_string(g->type) + " but map " +
                                                                  m.name + " reads " + to_string(t->type) +
                                                                  "; allowed: a tensor of " + to_string(t->type));
        return;
    }
    const int64_t rank = static_cast<int64_t>(m.box.size());
    const bool stride = op.field == MapField::global_stride;
    const int64_t dims = stride ? rank - 1 : rank;
    const int64_t d = op.dim.eval_int({});
    if (d < 0 || d >= dims)
        throw ScenarioError(op.dim.loc(), op_key(op, "dim"),
                            std::to_string(d) + " is not a dimension of map " + m.name + "; allowed: 0.." +
                                std::to_string(dims - 1) + " (outermost first" +
                                (stride ? "; the innermost dimension has no stride)" : ")"));
    check_expr_vars(op.value, {}, op_key(op, "value"));
    const int64_t v = op.value.eval_int({});
    int64_t lo = 1, hi = 0;
    switch (op.field) {
    case MapField::box_dim: hi = 256; break;
    case MapField::global_dim: hi = int64_t(1) << 32; break;
    case MapField::element_stride: hi = 8; break;
    case MapField::global_stride: lo = 16; hi = (int64_t(1) << 40) - 16; break;
    case MapField::global_address: break;
    }
    if (v < lo || v > hi || (stride && v % 16 != 0))
        throw ScenarioError(op.value.loc(), op_key(op, "value"),
                            std::to_string(v) + " is not a valid " + to_string(op.field) + "; allowed: " +
                                std::to_string(lo) + ".." + std::to_string(hi) + (stride ? ", a multiple of 16" : "") +
                                " [PTX 9.7.9.28; DRV cuTensorMapEncodeTiled]");
}

void check_wgmma_selector(const Scenario& sc, const Op& op) {
    const int block = sc.launch.block;
    if (block % 128 != 0)
        throw ScenarioError(op.loc, op_key(op, "op"), "wgmma runs on warpgroups of 128 threads; launch.block is " +
                                                          std::to_string(block) + "; allowed: a multiple of 128");
    if (op.by.per_iteration)
        throw ScenarioError(op.by.pred.loc(), op_key(op, "by"), "\"" + op.by.pred.text() + "\" names a loop variable; "
                            "allowed: a wgmma op's selector over tid, lane and warp only (its warpgroups are fixed)");
    for (int g = 0; g < block / 128; ++g) {
        int selected = 0;
        for (int t = g * 128; t < (g + 1) * 128; ++t) selected += op.by.includes(t) ? 1 : 0;
        if (selected != 0 && selected != 128)
            throw ScenarioError(op.loc, op_key(op, "by"), "\"" + op.by.text() + "\" selects " + std::to_string(selected) +
                                                              " threads of warpgroup " + std::to_string(g) +
                                                              "; allowed: whole warpgroups (.sync.aligned) [PTX 9.7.15]");
    }
}

const SharedBuffer& operand(const Scenario& sc, const Op& op, const Ref& r, const std::string& k) {
    const SharedBuffer* b = sc.find_shared(r.name);
    if (!b) throw ScenarioError(r.loc, op_key(op, k), "no shared buffer named '" + r.name + "'; declared: " +
                                                          join_names(names_of(sc.shared)));
    if (b->type != DType::f16 && b->type != DType::bf16)
        throw ScenarioError(r.loc, op_key(op, k), b->name + " holds " + to_string(b->type) + "; allowed: f16 or bf16");
    if (b->array != 0) throw ScenarioError(r.loc, op_key(op, k), "an operand must be a single buffer, not an array");
    return *b;
}

// A is [64, K] and B is [N, K], both K-major; in a swizzled layout a row is one swizzle
// atom (PTX 9.7.15.5.1, "shared memory matrix layout").
void check_wgmma_operands(const Scenario& sc, const Op& op, const AccumulatorDecl& acc) {
    const SharedBuffer& a = operand(sc, op, op.a, "a");
    const SharedBuffer& b = operand(sc, op, op.b, "b");
    if (a.type != b.type) throw ScenarioError(op.b.loc, op_key(op, "b"), "a and b hold different types; allowed: the same");
    if (a.shape.size() != 2 || a.shape[0] != 64)
        throw ScenarioError(op.a.loc, op_key(op, "a"), a.name + " must be a [64, K] tile (M = 64)");
    if (b.shape.size() != 2 || b.shape[0] != acc.n || b.shape[1] != a.shape[1])
        throw ScenarioError(op.b.loc, op_key(op, "b"), b.name + " must be an [N, K] tile with N = " +
                                                           std::to_string(acc.n) + " (accumulator " + acc.name +
                                                           ") and the K of " + a.name);
    const int64_t row_bytes = a.shape[1] * dtype_size(a.type);
    const int sw = swizzle_bytes(op.swizzle);
    if (sw != 0 && row_bytes != sw)
        throw ScenarioError(op.loc, op_key(op, "swizzle"),
                            "a K-major tile in the " + to_string(op.swizzle) + " layout has rows of exactly " +
                                std::to_string(sw) + " bytes; " + a.name + " rows have " + std::to_string(row_bytes) +
                                " [PTX 9.7.15.5.1]");
    if (sw == 0 && a.shape[1] % 8 != 0)
        throw ScenarioError(op.loc, op_key(op, "a"), "the no-swizzle layout is made of 8x8 core matrices; "
                                                     "allowed: K a multiple of 8");
    const int64_t repeat = sw == 0 ? 128 : int64_t{sw} * 8;
    for (const SharedBuffer* m : {&a, &b})
        if (m->align < repeat)
            throw ScenarioError(op.loc, op_key(op, m == &a ? "a" : "b"),
                                m->name + " is aligned to " + std::to_string(m->align) + " bytes; allowed: align >= " +
                                    std::to_string(repeat) + " (the layout's repeat, so the descriptor's base offset is 0)");
    check_expr_vars(op.k, {}, op_key(op, "k"));
    const int64_t k = op.k.eval_int({});
    if (k < 0 || k % 16 != 0 || k + 16 > a.shape[1])
        throw ScenarioError(op.k.loc(), op_key(op, "k"), std::to_string(k) + " is not a 16-wide K slice of " + a.name +
                                                             "; allowed: 0, 16, ..., " + std::to_string(a.shape[1] - 16));
    check_expr_vars(op.scale_d, {}, op_key(op, "scale_d"));
    const int64_t sd = op.scale_d.eval_int({});
    if (sd != 0 && sd != 1)
        throw ScenarioError(op.scale_d.loc(), op_key(op, "scale_d"), "allowed: 0 (D = A*B) or 1 (D = A*B + D)");
}

}  // namespace

void check_cluster_op(const Scenario& sc, const Op& op) {
    if (op.kind != OpKind::st_async) return;
    if (sc.launch.cluster_size() < 2)
        throw ScenarioError(op.loc, op_key(op, "op"), "st.async needs a cluster of more than one CTA (%cluster_nctarank > 1); "
                                                      "launch.cluster has " + std::to_string(sc.launch.cluster_size()) +
                                                          " [PTX 9.7.9.12]");
    const SharedBuffer* b = sc.find_shared(op.buffer.name);
    if (b && dtype_size(b->type) != 4)
        throw ScenarioError(op.buffer.loc, op_key(op, "buffer"), "st.async stores 32-bit elements; " + b->name + " holds " +
                                                                     to_string(b->type) + "; allowed: f32 or i32 buffers");
    if (!op.width.empty()) {
        const int64_t w = op.width.eval_int({});
        if (w != 4 && w != 8 && w != 16)
            throw ScenarioError(op.width.loc(), op_key(op, "width"), std::to_string(w) +
                                                                         " bytes; allowed: 4, 8, 16 (.b32, .v2.b32, .v4.b32)");
    }
}

void check_tensormap_op(const Scenario& sc, const Op& op) {
    if (op_takes_key(op.kind, "rows")) {
        // PTX 5.5.3.4: tile::gather4/scatter4 take no interleaved layout (semantics.md G34).
        const TensorMap* m = sc.find_map(op.map);
        if (m && m->interleave != Interleave::none)
            throw ScenarioError(op.loc, op_key(op, "map"), "map " + m->name + " is interleaved (" + to_string(m->interleave) +
                                                               "); " + to_string(op.kind) + " needs interleave: none "
                                                               "[PTX 5.5.3.4; semantics.md G34]");
        return;
    }
    // The tensormap ops that name a map need it in global memory; the release fence names none.
    if (op_family(op.kind) != OpFamily::tensormap || !op_takes_key(op.kind, "map")) return;
    const TensorMap& map = map_in_global(sc, op);
    if (op.kind == OpKind::tensormap_replace) check_replace(sc, op, map);
    if (op.kind == OpKind::tensormap_cp_fenceproxy && op.by.kind != Selector::Kind::warp)
        throw ScenarioError(op.loc, op_key(op, "by"), "tensormap.cp_fenceproxy is .sync.aligned: one whole warp runs it; "
                                                      "allowed: warpN");
    if (op.kind == OpKind::fence_proxy_tensormap_acquire && op.scope == Scope::cta)
        throw ScenarioError(op.loc, op_key(op, "scope"), "the acquire orders a map written by another thread or the host; "
                                                         "allowed: cluster, gpu, sys [PTX 9.7.13.4]");
}

void check_wgmma_op(const Scenario& sc, const Op& op) {
    if (op_family(op.kind) != OpFamily::wgmma) return;
    check_wgmma_selector(sc, op);
    if (!op_takes_key(op.kind, "acc")) return;  // fence, commit_group, wait_group
    const AccumulatorDecl* acc = sc.find_accumulator(op.acc);
    if (!acc) throw ScenarioError(op.loc, op_key(op, "acc"), "no accumulator named '" + op.acc + "'; declared: " +
                                                                 join_names(names_of(sc.accumulators)));
    if (op.kind == OpKind::wgmma_acc_fill) {
        check_expr_vars(op.value, {}, op_key(op, "value"));
    } else if (op.kind == OpKind::wgmma_acc_store) {
        const SharedBuffer* b = sc.find_shared(op.buffer.name);
        if (!b) throw ScenarioError(op.buffer.loc, op_key(op, "buffer"), "no shared buffer named '" + op.buffer.name +
                                                                             "'; declared: " + join_names(names_of(sc.shared)));
        if (b->type != DType::f32 || b->shape != std::vector<int64_t>{64, acc->n})
            throw ScenarioError(op.buffer.loc, op_key(op, "buffer"), b->name + " must be f32 of shape [64, " +
                                                                         std::to_string(acc->n) + "] to hold " + acc->name);
    } else {
        check_wgmma_operands(sc, op, *acc);
    }
}

}  // namespace tmasim
