// Tensor maps a kernel makes or changes on the device (PTX 9.7.9.28-29, 9.7.13.4; semantics.md
// B15): tensormap.replace of a field of a map's 128 bytes in shared or global memory,
// tensormap.cp_fenceproxy from a staged copy in shared memory to global memory (a release),
// and fence.proxy.tensormap::generic release / acquire. A map in global memory is tracked by
// its address (GlobalTensorMap, the op scenarios' B15 bookkeeping); a TMA instruction that uses
// one checks the rule (map_at): its latest write released, and acquired in the using CTA by a
// fence ordered before the use.
#include <array>

#include <fmt/format.h>

#include "model/core/hazard_rules.h"
#include "model/core/op_text.h"
#include "model/kernel/tensormap_bytes.h"
#include "model/kernel/unit_families.h"
#include "model/sm/cta_module.h"
#include "model/sm/shared_race_check.h"
#include "model/sm/warp_process.h"

namespace tmasim::model::kernel {
namespace {

ThreadEvent event(UnitCall& c, int lane) {
    const int t = c.thread(lane);
    return ThreadEvent{c.kw.cta().index(), t, c.kw.cta().tracker().advance(t), c.op.id};
}

KnowsFn knows_in(CtaModule& cta, int thread) {
    return [&cta, thread](const ThreadEvent& e) { return e.cta == cta.index() && cta.tracker().knows(thread, e.thread, e.time); };
}

// The record of the map at device address `addr`: one made on first use holds the host's copy
// (released, version 0), as the op scenarios' maps in global memory start.
GlobalTensorMap& device_map(UnitCall& c, uint64_t addr) {
    auto& maps = c.kw.image().device_maps;
    auto it = maps.find(addr);
    if (it == maps.end()) {
        MapFields f;
        f.map = fmt::format("{:#x}", addr);
        const Launch& l = c.kw.cta().run().scenario.launch;
        it = maps.emplace(addr, std::make_unique<GlobalTensorMap>(f, l.num_ctas(), l.cluster_size())).first;
    }
    return *it->second;
}

// The map bytes at `addr` (a global tensor's, a module global's, or this CTA's shared memory).
uint8_t* map_bytes(UnitCall& c, const MemPlace& p) {
    switch (p.kind) {
        case MemPlace::Kind::shared: return c.kw.cta().smem().data() + p.offset;
        case MemPlace::Kind::tensor: return c.kw.cta().run().global.bytes(p.tensor).data() + p.offset;
        case MemPlace::Kind::module_global: return c.kw.image().module_globals.at(static_cast<size_t>(p.index)).data() + p.offset;
        default: throw std::out_of_range("a tensor map in memory other than shared or global");
    }
}

void replace(UnitCall& c) {
    // tensormap.replace.tile.field{.ss}.b1024.type [addr], {ordinal,} new_val
    const ptx::Instruction& ins = c.ins();
    std::string field;
    for (const char* f : {"global_address", "rank", "box_dim", "global_dim", "global_stride", "element_stride", "elemtype",
                          "interleave_layout", "swizzle_mode", "swizzle_atomicity", "fill_mode"})
        if (ins.has(f)) field = f;
    if (field.empty() || !ins.has("tile")) throw std::out_of_range(fmt::format("`{}`: a field the model holds of a tile map", ins.opcode));
    const bool ordinal = c.u.operands.size() == 3;
    for (int l : c.lanes) {
        const uint64_t addr = c.address(0, l);
        const MemPlace p = c.place(addr, l, 128);
        uint8_t* bytes = map_bytes(c, p);
        const int64_t dim = ordinal ? static_cast<int64_t>(c.value(1, l)) : 0;
        const uint64_t value = c.value(ordinal ? 2 : 1, l);
        std::string why;
        if (!replace_tensormap_field(bytes, field, dim, value, why))
            throw std::out_of_range(fmt::format("`{}`: {}", ins.opcode, why));
        if (p.kind == MemPlace::Kind::shared) {
            // The staged copy's bytes change like a generic store's (C22 orders the copy after them).
            const auto [name, base] = c.buffer_at(p.offset);
            SharedRaceCheck(c.kw.cta(), c.op, name, base).generic(c.site(l), c.thread(l), p.offset, 128, true);
            c.kw.cta().tracker().generic_write(c.thread(l), p.offset, 128, c.op.id);
        } else {
            MapWrite w;
            w.kind = MapWrite::Kind::replace;
            w.op = c.op.id;
            w.cta = c.kw.cta().index();
            w.writers = {event(c, l)};
            w.released = false;
            device_map(c, addr).record_write(std::move(w));
        }
    }
}

void copy(UnitCall& c) {
    // tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned [dst], [src], 128
    std::vector<ThreadEvent> warp;
    uint64_t dst = 0;
    for (int l : c.lanes) {
        dst = c.address(0, l);
        const MemPlace to = c.place(dst, l, 128, 0);
        const MemPlace from = c.place(c.address(1, l), l, 128, 1);
        if (from.kind != MemPlace::Kind::shared) throw std::out_of_range("tensormap.cp_fenceproxy from memory other than this CTA's shared");
        const auto [name, base] = c.buffer_at(from.offset);
        SharedRaceCheck(c.kw.cta(), c.op, name, base).generic(c.site(l), c.thread(l), from.offset, 128, false);
        std::array<uint8_t, 128> b{};
        std::copy_n(c.kw.cta().smem().data() + from.offset, 128, b.begin());
        std::copy(b.begin(), b.end(), map_bytes(c, to));
        warp.push_back(event(c, l));
    }
    MapWrite w;
    w.kind = MapWrite::Kind::copy;
    w.op = c.op.id;
    w.cta = c.kw.cta().index();
    w.writers = warp;
    w.releases = warp;
    w.released = true;
    w.scope = c.op.scope;
    device_map(c, dst).record_write(std::move(w));
}

}  // namespace

void unit_tensormap(UnitCall& c) {
    CtaModule& cta = c.kw.cta();
    const TimingParams& tp = cta.run().timing;
    c.kw.note_visible_action();
    c.emit(EventKind::issue);
    double cost = tp.issue_cycles;
    switch (c.op.kind) {
        case OpKind::tensormap_replace:
            replace(c);
            cost = tp.tensormap_replace_cycles;
            break;
        case OpKind::tensormap_cp_fenceproxy:
            copy(c);
            cost = tp.tensormap_cp_fenceproxy_cycles;
            break;
        case OpKind::fence_proxy_tensormap_release:
            for (int l : c.lanes) {
                const ThreadEvent e = event(c, l);
                for (auto& [addr, m] : c.kw.image().device_maps) m->release(e, c.op.scope);
            }
            cost = tp.fence_proxy_tensormap_release_cycles;
            break;
        case OpKind::fence_proxy_tensormap_acquire:
            for (int l : c.lanes) device_map(c, c.address(0, l)).acquire(event(c, l), c.op.scope, knows_in(cta, c.thread(l)));
            cost = tp.fence_proxy_tensormap_acquire_cycles;
            break;
        default: throw std::logic_error(fmt::format("model: {} in the tensormap family", c.op.display()));
    }
    c.spend(cost);
    c.emit(EventKind::complete);
}

// B15 at a TMA use of the map at global address `addr` (model/kernel/unit_pending.cpp's map_at).
void check_device_map_use(UnitCall& c, int lane, uint64_t addr) {
    auto& maps = c.kw.image().device_maps;
    CtaModule& cta = c.kw.cta();
    GlobalTensorMap& m = device_map(c, addr);
    (void)maps;
    const int t = c.thread(lane);
    const UseVerdict v = m.check_use(ThreadEvent{cta.index(), t, cta.tracker().time_of(t), c.op.id}, knows_in(cta, t));
    if (v.kind == UseVerdict::Kind::ok) return;
    const std::string rule = v.kind == UseVerdict::Kind::no_release ? "tensormap.no_release" : "tensormap.no_acquire";
    cta.hazard_once(c.op, c.site(lane), rule,
                    HazardRules::message(rule, fmt::format("{}: thread {} uses the tensor map at {:#x}: {}", op_title(c.op), t, addr, v.why)),
                    {{"map", fmt::format("{:#x}", addr)}, {"thread", std::to_string(t)}});
}

}  // namespace tmasim::model::kernel
