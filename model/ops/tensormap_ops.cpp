#include "model/ops/tensormap_ops.h"

#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "model/sm/cta_module.h"
#include "model/core/hazard_rules.h"
#include "model/core/op_text.h"
#include "model/core/sim_time.h"
#include "model/copy/tensor_copy.h"
#include "model/sm/warp_process.h"

namespace tmasim::model {

namespace {

std::string op_name(const Scenario& s, int id) {
    const Op* o = s.find_op(id);
    std::string what = o ? to_string(o->kind) : "op";
    if (o && !o->label.empty()) what += " '" + o->label + "'";
    return fmt::format("op #{} {}", id, what);
}

KnowsFn knows_in(CtaModule& cta, int thread) {
    return [&cta, thread](const ThreadEvent& e) {
        return e.cta == cta.index() && cta.tracker().knows(thread, e.thread, e.time);
    };
}

[[noreturn]] void fault_at(CtaModule& cta, const Op& op, const EventSite& site, const std::string& rule,
                           const std::string& what) {
    cta.fault(op, site, HazardRules::message(rule, what), rule);
    throw RunAborted{};
}

}  // namespace

TensorMapWarpOps::TensorMapWarpOps(WarpProcess& warp) : w_(warp), cta_(warp.cta()), tp_(warp.cta().run().timing) {}

ThreadEvent TensorMapWarpOps::event(const Op& op, int lane) {
    const int t = w_.thread(lane);
    return ThreadEvent{cta_.index(), t, cta_.tracker().advance(t), op.id};
}

KnowsFn TensorMapWarpOps::knows_for(int thread) const { return knows_in(cta_, thread); }

GlobalTensorMap& TensorMapWarpOps::map_of(const Op& op) {
    GlobalTensorMap* m = cta_.run().tensormaps.global_map(op.map);
    if (!m) throw std::logic_error(fmt::format("model: {}: map {} is not in global memory", op_title(op), op.map));
    return *m;
}

void TensorMapWarpOps::exec(const Op& op, const std::vector<int>& lanes) {
    const std::vector<int> ev = w_.event_lanes(op, lanes);
    w_.emit(op, ev, EventKind::issue);
    double cost = tp_.issue_cycles;
    switch (op.kind) {
        case OpKind::tensormap_stage:
            for (int l : lanes) map_of(op).stage(event(op, l));
            cost = tp_.tensormap_stage_cycles;
            break;
        case OpKind::tensormap_replace:
            replace(op, lanes);
            cost = tp_.tensormap_replace_cycles;
            break;
        case OpKind::tensormap_cp_fenceproxy:
            copy(op, lanes);
            cost = tp_.tensormap_cp_fenceproxy_cycles;
            break;
        case OpKind::fence_proxy_tensormap_release:
            // No map operand: the fence releases every tensormap write of the thread before it.
            for (int l : lanes) {
                const ThreadEvent e = event(op, l);
                for (GlobalTensorMap* m : cta_.run().tensormaps.global_maps()) m->release(e, op.scope);
            }
            cost = tp_.fence_proxy_tensormap_release_cycles;
            break;
        case OpKind::fence_proxy_tensormap_acquire:
            for (int l : lanes) map_of(op).acquire(event(op, l), op.scope, knows_for(w_.thread(l)));
            cost = tp_.fence_proxy_tensormap_acquire_cycles;
            break;
        default: throw std::logic_error(fmt::format("model: {} is not a tensor-map op", op_title(op)));
    }
    w_.spend(cost);
    w_.emit(op, ev, EventKind::complete);
}

void TensorMapWarpOps::replace(const Op& op, const std::vector<int>& lanes) {
    GlobalTensorMap& m = map_of(op);
    const bool address = op.field == MapField::global_address;
    const GlobalTensor* retarget = address ? &cta_.run().global.tensor(op.global) : nullptr;
    const int64_t dim = address ? 0 : w_.eval(op.dim, 0);
    const int64_t value = address ? 0 : w_.eval(op.value, 0);
    if (op.space == Space::shared) {
        check_staged(op, m, lanes.front());
        for (int l : lanes) m.replace_staged(event(op, l), op.field, dim, value, retarget);
        return;
    }
    check_not_in_flight(op, op.map, lanes.front());
    std::vector<ThreadEvent> writers;
    for (int l : lanes) writers.push_back(event(op, l));
    m.replace_global(writers, op.field, dim, value, retarget);
}

void TensorMapWarpOps::copy(const Op& op, const std::vector<int>& lanes) {
    GlobalTensorMap& m = map_of(op);
    check_staged(op, m, lanes.front());
    std::vector<ThreadEvent> warp;
    for (int l : lanes) warp.push_back(event(op, l));
    // The warp reads the staged copy: another thread's write of it must be ordered before
    // by a sync (the guide's __syncwarp between thread 0's replaces and the copy).
    for (size_t i = 0; i < warp.size(); ++i) {
        const auto unseen = m.unseen_staged_writes(warp[i], knows_for(warp[i].thread));
        if (unseen.empty()) continue;
        const ThreadEvent& w = unseen.front();
        cta_.hazard_once(op, w_.site(op, lanes[i]), "race.tensormap_staged",
                         HazardRules::message("race.tensormap_staged",
                                              fmt::format("{}: thread {} copies the staged copy of map {}, but {} "
                                                          "by thread {} wrote it with no sync between them",
                                                          op_title(op), warp[i].thread, op.map,
                                                          op_name(cta_.run().scenario, w.op), w.thread)),
                         {{"map", op.map}, {"writer_op", std::to_string(w.op)},
                          {"writer_thread", std::to_string(w.thread)}, {"reader_thread", std::to_string(warp[i].thread)}});
        break;
    }
    check_not_in_flight(op, op.map, lanes.front());
    m.copy_staged(warp, op.scope);
}

void TensorMapWarpOps::check_staged(const Op& op, GlobalTensorMap& m, int lane) {
    if (m.staged(cta_.index())) return;
    cta_.hazard_once(op, w_.site(op, lane), "tensormap.unstaged",
                     HazardRules::message("tensormap.unstaged",
                                          fmt::format("{}: the staged copy of map {} in CTA {} was never filled by "
                                                      "tensormap.stage", op_title(op), op.map, cta_.index())),
                     {{"map", op.map}});
}

void TensorMapWarpOps::check_not_in_flight(const Op& op, const std::string& map, int lane) {
    const auto read = cta_.run().tensormaps.read_in_flight(map);
    if (!read) return;
    cta_.hazard_once(op, w_.site(op, lane), "race.tensormap_in_use",
                     HazardRules::message("race.tensormap_in_use",
                                          fmt::format("{}: writes map {} in global memory while {} of CTA {} still "
                                                      "reads it", op_title(op), map,
                                                      op_name(cta_.run().scenario, read->op), read->cta)),
                     {{"map", map}, {"reader_op", std::to_string(read->op)}, {"reader_cta", std::to_string(read->cta)}});
}

TensorMapUse TensorMapUse::at_issue(CtaModule& cta, const Op& op, const EventSite& site, int thread,
                                    const std::vector<int64_t>& coords) {
    RunContext& run = cta.run();
    GlobalTensorMap* global = run.tensormaps.global_map(op.map);
    if (global) {
        const ThreadEvent user{cta.index(), thread, cta.tracker().time_of(thread), op.id};
        const UseVerdict v = global->check_use(user, knows_in(cta, thread));
        if (v.kind != UseVerdict::Kind::ok) {
            const std::string rule = v.kind == UseVerdict::Kind::no_release ? "tensormap.no_release" : "tensormap.no_acquire";
            cta.hazard_once(op, site, rule,
                            HazardRules::message(rule, fmt::format("{}: thread {} of CTA {} uses map {} in global "
                                                                   "memory, but {}", op_title(op), thread,
                                                                   cta.index(), op.map, v.why)),
                            {{"map", op.map}, {"thread", std::to_string(thread)}});
        }
    }
    TensorMapUse use;
    use.fields = run.tensormaps.fields(op.map);
    const MapFields& f = *use.fields;
    if (global) {
        const std::string invalid = f.invalid_reason();
        if (!invalid.empty())
            fault_at(cta, op, site, "tensormap.invalid_fields",
                     fmt::format("{}: map {} now has {}: {}", op_title(op), op.map, f.describe(), invalid));
    }
    if (f.interleave != Interleave::none && op.kind == OpKind::tma_reduce)
        throw std::logic_error(fmt::format("model: {}: a reduction through an interleaved map is not modelled yet",
                                           op_title(op)));
    const TensorCopy copy(f);
    if (op.kind != OpKind::tma_prefetch) {
        const Ref& buf = op.kind == OpKind::tma_load ? op.dst : op.src;
        const SharedBuffer* b = run.scenario.find_shared(buf.name);
        if (b && copy.box_bytes() > b->size_bytes())
            fault_at(cta, op, site, "model.fault",
                     fmt::format("{}: the box of map {} is {} bytes ({}) but buffer {} holds {}", op_title(op), op.map,
                                 copy.box_bytes(), f.describe(), b->name, b->size_bytes()));
    }
    const GlobalTensor& tensor = run.global.tensor(f.tensor);
    const auto span = copy.global_span(coords);
    if (span.second >= tensor.size_bytes())
        fault_at(cta, op, site, "tensormap.outside_allocation",
                 fmt::format("{}: the box of map {} at coordinates [{}] reaches byte {} of tensor {}, which holds {} "
                             "bytes ({})", op_title(op), op.map, fmt::join(coords, ", "), span.second, tensor.name,
                             tensor.size_bytes(), f.describe()));
    if (global) use.reader = run.tensormaps.start_read(op.map, op.id, cta.index());
    return use;
}

}  // namespace tmasim::model
