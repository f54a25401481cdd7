#include "model/run/cta_schedule.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "scenarios/op_table.h"

namespace tmasim::model {

namespace {

bool names_the_cta(const Expr& e) {
    if (e.empty()) return false;
    const std::vector<std::string> vars = e.variables();
    return std::find(vars.begin(), vars.end(), "cta") != vars.end() ||
           std::find(vars.begin(), vars.end(), "rank") != vars.end();
}

// Every expression of `op` that sets what a warp does, waits for or how long it takes; not
// the coordinates and offsets that only pick which global bytes a load reads.
std::vector<const Expr*> behaviour_exprs(const Op& op) {
    std::vector<const Expr*> out{&op.count,       &op.bytes,     &op.parity, &op.barrier_id, &op.n,
                                 &op.range_start, &op.range_count, &op.index, &op.width,     &op.value,
                                 &op.k,           &op.scale_d,   &op.loop_count, &op.cta,   &op.multicast};
    for (const Ref* r : {&op.barrier, &op.dst, &op.src, &op.buffer, &op.a, &op.b}) out.push_back(&r->index);
    return out;
}

// Op kinds whose effects stay inside the CTA, or reach global memory only as TMA and bulk
// loads through the chip's HBM channel and L2.
bool stays_in_cta(OpKind kind) {
    switch (op_family(kind)) {
        case OpFamily::barrier:
        case OpFamily::barrier_wait:
        case OpFamily::cta_sync:
        case OpFamily::fence:
        case OpFamily::bulk_group:
        case OpFamily::compute:
        case OpFamily::loop:
        case OpFamily::wgmma:
        case OpFamily::named_barrier: return true;
        case OpFamily::async_copy: return kind == OpKind::tma_load || kind == OpKind::bulk_load;
        case OpFamily::per_thread: return kind == OpKind::shared_load || kind == OpKind::shared_store;
        case OpFamily::snapshot:
        case OpFamily::cp_async:
        case OpFamily::cluster_barrier:
        case OpFamily::st_async:
        case OpFamily::tensormap:
        case OpFamily::kernel_memory:
        case OpFamily::layout: return false;
    }
    return false;
}

}  // namespace

std::optional<std::string> why_ctas_run_together(const Scenario& s) {
    if (s.launch.num_ctas() < 2) return "one CTA";
    if (s.is_kernel()) return "a kernel: what its CTAs do depends on their registers, not on ops the model can read ahead";
    if (s.launch.cluster_size() > 1) return "clusters of more than one CTA";
    for (const TensorMap& m : s.tensormaps)
        if (m.location != MapLocation::param) return fmt::format("tensor map {} is read from global memory", m.name);
    for (const Op* op : s.all_ops()) {
        if (!stays_in_cta(op->kind)) return fmt::format("{} (op {}) reaches beyond its CTA", op_info(op->kind).spelling, op->id);
        for (const Expr* e : behaviour_exprs(*op))
            if (names_the_cta(*e))
                return fmt::format("op {} ({}) names cta or rank in {}", op->id, op_info(op->kind).spelling, e->key());
    }
    return std::nullopt;
}

}  // namespace tmasim::model
