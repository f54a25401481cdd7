// st.async of a kernel (PTX 9.7.9.12; semantics.md F31): each lane's store into a peer CTA's
// shared memory through its shared::cluster address, with complete_tx of its bytes on the
// barrier its second address names, delivered as the op scenarios' st.async is
// (ClusterWarpOps::st_async_to: the peer's init published, the DSMEM race check, the bytes
// and the tx landing a DSMEM latency later).
#include <cstring>

#include <fmt/format.h>

#include "model/kernel/kernel_barriers.h"
#include "model/kernel/unit_families.h"
#include "model/ops/cluster_warp_ops.h"
#include "model/sm/cluster.h"
#include "model/sm/cluster_fabric.h"
#include "model/sm/cta_module.h"
#include "model/sm/warp_process.h"

namespace tmasim::model::kernel {

void unit_st_async(UnitCall& c) {
    if (c.op.kind == OpKind::red_async)
        throw std::out_of_range(fmt::format("`{}` (red.async) is not modelled for kernels yet", c.ins().opcode));
    const ptx::Instruction& ins = c.ins();
    const Ty t = instruction_type(ins);
    const UnitOperand& v = c.operand(1);
    const std::vector<int32_t> slots = v.kind == UnitOperand::Kind::vector ? v.elems : std::vector<int32_t>{v.slot};
    const int64_t each = ty_bits(t) / 8;
    const int64_t width = each * static_cast<int64_t>(slots.size());
    Cluster* cluster = cluster_of(c.kw.cta());
    if (!cluster) throw std::logic_error("model: st.async in a run built without a cluster fabric");
    std::vector<StAsyncLane> stores;
    int b = -1;
    int64_t first_offset = 0;
    for (int l : c.lanes) {
        const MemPlace dst = c.place(c.address(0, l), l, width, 0);
        const MemPlace bar = c.place(c.address(2, l), l, 8, 0);
        const int index = barrier_at(c.kw.image(), cluster->at_rank(bar.rank), bar.offset);
        if (b >= 0 && index != b)
            throw std::out_of_range(fmt::format("the lanes of one `{}` signal different barriers", ins.opcode));
        b = index;
        StAsyncLane s;
        s.lane = l;
        s.store = StAsyncStore{c.thread(l), dst.rank, bar.rank, dst.offset, width};
        s.payload.assign(static_cast<size_t>(width), 0);
        for (size_t i = 0; i < slots.size(); ++i) {
            const uint64_t x = c.kw.reg(slots[i], l);
            std::memcpy(s.payload.data() + i * static_cast<size_t>(each), &x, static_cast<size_t>(each));
        }
        if (stores.empty()) first_offset = dst.offset;
        stores.push_back(std::move(s));
    }
    const auto [name, base] = c.buffer_at(first_offset);
    c.kw.note_visible_action();
    c.emit(EventKind::issue);
    c.spend(ClusterWarpOps(c.kw.warp()).st_async_to(c.op, stores, b, name, base));
    c.emit(EventKind::complete);
}

}  // namespace tmasim::model::kernel
