// Load-time checks of the copy ops that need nothing but the scenario: a tensor copy's map and
// buffer, gather4/scatter4's row shape, a reduction's element type, an op's minimum SM.
#include "scenarios/validator_util.h"

namespace tmasim {

void check_reduce_type(const Scenario& sc, const Op& op) {
    const std::string tensor = op.kind == OpKind::bulk_reduce ? op.global : sc.find_map(op.map)->tensor;
    const GlobalTensor* g = sc.find_global(tensor);
    if (!reduce_supported(op.reduce, g->type))
        throw ScenarioError(op.loc, op_key(op, "reduce"),
                            "cp.reduce.async.bulk has no ." + to_string(op.reduce) + " for " + to_string(g->type) +
                                " elements (tensor " + g->name + "); allowed: f32 add; f16/bf16 add, min, max; "
                                "i32 add, min, max, and, or, xor [PTX 9.7.9.25.4.2; semantics.md D24]");
}

// An op newer than the scenario's architecture (the op table's minimum SM).
void check_op_arch(const Scenario& sc, const Op& op) {
    const int min_sm = op_info(op.kind).min_sm;
    if (std::stoi(sc.arch.substr(3)) >= min_sm) return;
    throw ScenarioError(op.loc, op_key(op, "op"), "needs arch: sm_" + std::to_string(min_sm) + " (" + to_string(op.kind) +
                                                   " is an sm_" + std::to_string(min_sm) +
                                                   " instruction); the scenario says " + sc.arch);
}

// tile::gather4 / tile::scatter4 (semantics.md G34-35): sm_100, a 2-D map whose box is
// one row of at least 32 bytes, and a buffer for four such rows.
void check_gather4_static(const Scenario& sc, const Op& op) {
    const TensorMap* m = sc.find_map(op.map);
    if (!m) throw ScenarioError(op.loc, op_key(op, "map"), "no tensor map named '" + op.map + "'; declared: " +
                                                            join_names(names_of(sc.tensormaps)));
    const GlobalTensor* g = sc.find_global(m->tensor);
    if (m->box.size() != 2 || m->box[0] != 1)
        throw ScenarioError(op.loc, op_key(op, "map"), "map " + m->name +
                                                        " must be 2-D with box [1, width] for gather4/scatter4 [PTX 5.5.3.4]");
    const int64_t row_bytes = m->box[1] * dtype_size(g->type);
    if (row_bytes < 32)
        throw ScenarioError(op.loc, op_key(op, "map"), "the box row of " + m->name + " is " + std::to_string(row_bytes) +
                                                        " bytes; allowed: at least 32 bytes [Gluon tma.py; semantics.md G35]");
    const Ref& buf = op.kind == OpKind::tma_gather4 ? op.dst : op.src;
    const SharedBuffer* b = sc.find_shared(buf.name);
    if (b->align < 128)
        throw ScenarioError(buf.loc, op_key(op, "buffer"), "buffer " + b->name + " needs align >= 128 [PTX 5.5.3]");
    if (4 * row_bytes > b->size_bytes())
        throw ScenarioError(buf.loc, op_key(op, "buffer"), "four rows of " + m->name + " are " + std::to_string(4 * row_bytes) +
                                                            " bytes but " + b->name + " holds " +
                                                            std::to_string(b->size_bytes()));
}

void check_tma_copy_static(const Scenario& sc, const Op& op) {
    const TensorMap* m = sc.find_map(op.map);
    if (!m) throw ScenarioError(op.loc, op_key(op, "map"), "no tensor map named '" + op.map + "'; declared: " +
                                                            join_names(names_of(sc.tensormaps)));
    if (op.coords.size() != m->box.size())
        throw ScenarioError(op.loc, op_key(op, "coords"), "map " + m->name + " has rank " + std::to_string(m->box.size()) +
                                                           "; allowed: exactly that many coordinates");
    if (op.kind == OpKind::tma_prefetch) return;  // no shared buffer
    const Ref& buf = op.kind == OpKind::tma_load ? op.dst : op.src;
    const SharedBuffer* b = sc.find_shared(buf.name);
    if (b->align < 128)
        throw ScenarioError(buf.loc, op_key(op, op.kind == OpKind::tma_load ? "dst" : "src"),
                            "buffer " + b->name + " is aligned to " + std::to_string(b->align) +
                                " bytes; allowed: a tensor copy's shared buffer needs align >= 128 [PTX 5.5.3]");
    int64_t need = m->box_bytes(sc.find_global(m->tensor)->type);
    if (need > b->size_bytes())
        throw ScenarioError(buf.loc, op_key(op, op.kind == OpKind::tma_load ? "dst" : "src"),
                            "the box of " + m->name + " is " + std::to_string(need) + " bytes but " + b->name + " holds " +
                                std::to_string(b->size_bytes()) + "; allowed: a buffer at least as large as the box");
}

}  // namespace tmasim
