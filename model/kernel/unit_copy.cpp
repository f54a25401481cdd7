// The TMA unit's instructions of a kernel: cp.async.bulk.tensor (tile loads, stores, reduces,
// prefetches; multicast), cp.async.bulk (1-D), cp.reduce.async.bulk, their prefetches, and the
// bulk groups. Each lane's request is built from its registers and the 128 bytes of its tensor
// map, then checked and submitted by CopyIssuer as an op scenario's is (alignment, the proxy
// fence of a read, the store traps, races with pending reads; the engine's timing).
#include <fmt/format.h>

#include "model/copy/tensor_copy.h"
#include "model/kernel/kernel_barriers.h"
#include "model/kernel/unit_families.h"
#include "model/ops/copy_issuer.h"
#include "model/sm/cta_module.h"
#include "model/sm/warp_process.h"

namespace tmasim::model::kernel {
namespace {

TmaRequest::Kind request_kind(OpKind k) {
    switch (k) {
        case OpKind::tma_load: return TmaRequest::Kind::tensor_load;
        case OpKind::tma_store: return TmaRequest::Kind::tensor_store;
        case OpKind::tma_reduce: return TmaRequest::Kind::tensor_reduce;
        case OpKind::tma_prefetch: return TmaRequest::Kind::tensor_prefetch;
        case OpKind::bulk_load: return TmaRequest::Kind::bulk_load;
        case OpKind::bulk_store: return TmaRequest::Kind::bulk_store;
        case OpKind::bulk_reduce: return TmaRequest::Kind::bulk_reduce;
        case OpKind::bulk_prefetch: return TmaRequest::Kind::bulk_prefetch;
        default: throw std::out_of_range(fmt::format("{} is not modelled for kernels", to_string(k)));
    }
}

bool is_tensor(OpKind k) {
    return k == OpKind::tma_load || k == OpKind::tma_store || k == OpKind::tma_reduce || k == OpKind::tma_prefetch;
}

// The shared bytes a request reads or writes, as this CTA's offset: operand `i`, in the
// instruction's `nth` state space (a load's destination is its first, a store's source its second).
int64_t shared_operand(UnitCall& c, size_t i, int lane, int64_t bytes, int nth) {
    const MemPlace p = c.place(c.address(i, lane), lane, bytes, nth);
    if (p.kind != MemPlace::Kind::shared)
        throw std::out_of_range(fmt::format("`{}`: its shared memory operand is not this CTA's own (a copy into a peer's "
                                            "shared memory needs .multicast::cluster in the model)", c.ins().opcode));
    return p.offset;
}

// tile::gather4 / tile::scatter4 (sm_100a): four rows of a 2-D map at one column, the map's
// fields standing in for a declared map (Gather4Copy reads a map's box, swizzle and fill).
void rows_copy(UnitCall& c) {
    CtaModule& cta = c.kw.cta();
    const bool gather = c.op.kind == OpKind::tma_gather4;
    c.emit(EventKind::issue);
    double cost = CopyIssuer::issue_cycles(c.op.kind, cta.run().timing);
    for (int l : c.lanes) {
        // gather4 [dst], [map, {col, r0, r1, r2, r3}], [mbar]; scatter4 [map, {col, r0..r3}], [src]
        const size_t map_i = gather ? 1 : 0;
        const UnitOperand& m = c.operand(map_i);
        std::string key;
        const auto fields = c.map_at(l, c.address(map_i, l), key);
        if (fields->rank() != 2 || m.elems.size() != 5)
            throw std::out_of_range(fmt::format("`{}` needs a 2-D map and 5 coordinates (a column, four rows)", c.ins().opcode));
        TmaRequest r;
        r.kind = gather ? TmaRequest::Kind::gather4 : TmaRequest::Kind::scatter4;
        r.map = c.kw.image().map_standing_for(*fields);
        r.fields = fields;
        r.tensor = fields->tensor;
        r.col = static_cast<int32_t>(c.kw.reg(m.elems[0], l));
        for (size_t i = 1; i < 5; ++i) r.rows.push_back(static_cast<int32_t>(c.kw.reg(m.elems[i], l)));
        r.bytes = 4 * fields->box[1] * fields->element_bytes();
        const int64_t smem = shared_operand(c, gather ? 0 : 1, l, r.bytes, gather ? 0 : 1);
        r.smem_offset = smem;
        if (gather) r.barrier = barrier_at(c.kw.image(), cta, c.place(c.address(2, l), l, 8, 0).offset);
        const auto [buffer, base] = c.buffer_at(smem);
        CopyIssuer(cta, c.op, buffer, base).issue_resolved(std::move(r), c.site(l), c.thread(l), std::nullopt);
        if (cta.first_use_of_map(key)) cost += cta.run().timing.tensormap_fetch_cycles;
    }
    c.kw.note_visible_action();
    c.spend(cost);
    c.emit(EventKind::complete);
}

}  // namespace

void unit_bulk_copy(UnitCall& c) {
    const ptx::Instruction& ins = c.ins();
    if (ins.has("im2col") || ins.has("im2col_no_offs"))
        throw std::out_of_range(fmt::format("`{}`: the im2col mode of kernels is not modelled yet", ins.opcode));
    if (c.op.kind == OpKind::tma_gather4 || c.op.kind == OpKind::tma_scatter4) return rows_copy(c);
    CtaModule& cta = c.kw.cta();
    const TimingParams& tp = cta.run().timing;
    const OpKind k = c.op.kind;
    const bool tensor = is_tensor(k);
    const bool load = k == OpKind::tma_load || k == OpKind::bulk_load;
    const bool prefetch = k == OpKind::tma_prefetch || k == OpKind::bulk_prefetch;
    const bool multicast = ins.has("multicast::cluster");
    c.emit(EventKind::issue);
    double cost = CopyIssuer::issue_cycles(k, tp);
    for (int l : c.lanes) {
        TmaRequest r;
        r.kind = request_kind(k);
        r.reduce = c.op.reduce;
        std::optional<int64_t> mask;
        int64_t smem = -1;
        std::string map_key;
        if (tensor) {
            // [map, {c0, c1, ...}]: the map operand of a load is the second, of the rest the first.
            const size_t map_i = load ? 1 : 0;
            const UnitOperand& m = c.operand(map_i);
            r.fields = c.map_at(l, c.address(map_i, l), map_key);
            r.tensor = r.fields->tensor;
            // PTX lists coordinates innermost first; the model's maps are outermost first.
            for (size_t i = m.elems.size(); i-- > 0;) r.coords.push_back(static_cast<int32_t>(c.kw.reg(m.elems[i], l)));
            if (r.coords.size() != r.fields->rank())
                throw std::out_of_range(fmt::format("`{}` gives {} coordinates for a map of rank {}", ins.opcode, r.coords.size(),
                                                    r.fields->rank()));
            r.bytes = TensorCopy(*r.fields).box_bytes();
            if (!prefetch) smem = shared_operand(c, load ? 0 : 1, l, r.bytes, load ? 0 : 1);
            if (load) {
                r.barrier = barrier_at(c.kw.image(), cta, c.place(c.address(2, l), l, 8, 0).offset);
                if (multicast) mask = static_cast<int64_t>(c.value(3, l) & 0xffff);
            }
        } else {
            // load [dst], [src], size, [mbar]{, mask}; store / reduce [dst], [src], size; prefetch [src], size.
            const size_t global_i = load || prefetch ? (prefetch ? 0 : 1) : 0;
            r.bytes = static_cast<int64_t>(c.value(prefetch ? 1 : 2, l) & 0xffffffffu);
            const MemPlace g = c.place(c.address(global_i, l), l, std::max<int64_t>(r.bytes, 1), load ? 1 : 0);
            // (a load's global source is its second space, a store's destination and a prefetch's source its first)
            if (g.kind != MemPlace::Kind::tensor)
                throw std::out_of_range(fmt::format("`{}`: its global operand is not in a tensor of the scenario", ins.opcode));
            r.tensor = g.tensor;
            r.global_offset = g.offset;
            if (!prefetch) smem = shared_operand(c, load ? 0 : 1, l, r.bytes, load ? 0 : 1);
            if (load) {
                r.barrier = barrier_at(c.kw.image(), cta, c.place(c.address(3, l), l, 8, 0).offset);
                if (multicast) mask = static_cast<int64_t>(c.value(4, l) & 0xffff);
            }
        }
        r.smem_offset = smem < 0 ? 0 : smem;
        const auto [buffer, base] = smem < 0 ? std::pair<std::string, int64_t>{"", 0} : c.buffer_at(smem);
        CopyIssuer(cta, c.op, buffer, base).issue_resolved(std::move(r), c.site(l), c.thread(l), mask);
        // The first tensor op on a map in this CTA also fetches its descriptor.
        if (tensor && cta.first_use_of_map(map_key)) cost += tp.tensormap_fetch_cycles;
    }
    c.kw.note_visible_action();
    c.spend(cost);
    c.emit(EventKind::complete);
}

void unit_bulk_group(UnitCall& c) {
    CtaModule& cta = c.kw.cta();
    c.kw.note_visible_action();
    if (c.op.kind == OpKind::bulk_commit_group) {
        c.emit(EventKind::issue);
        for (int l : c.lanes) cta.groups().commit(c.thread(l));
        c.spend(cta.run().timing.bulk_commit_cycles);
        c.emit(EventKind::complete);
        return;
    }
    // cp.async.bulk.wait_group[.read] N: N is an immediate.
    c.kw.warp().bulk_wait(c.op, c.lanes, c.event_lanes(), static_cast<int64_t>(c.value(0, c.lanes.front())));
}

}  // namespace tmasim::model::kernel
