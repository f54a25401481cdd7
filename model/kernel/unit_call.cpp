#include "model/kernel/unit_call.h"

#include <stdexcept>

#include <fmt/format.h>

#include "model/core/sim_time.h"
#include "model/kernel/kernel_layout.h"
#include "model/sm/cta_module.h"
#include "model/sm/warp_process.h"
#include "ptx/instruction_kinds.h"

namespace tmasim::model::kernel {

const UnitOperand& UnitCall::operand(size_t i) const {
    if (i >= u.operands.size())
        throw std::out_of_range(fmt::format("`{}` has {} operands, the model reads operand {}", ins().opcode, u.operands.size(), i));
    return u.operands[i];
}

uint64_t UnitCall::value(size_t i, int lane) const { return kw.reg(operand(i).slot, lane); }

uint64_t UnitCall::address(size_t i, int lane) const { return kw.address(operand(i), lane); }

void UnitCall::set(size_t i, int lane, uint64_t v) const { kw.set_reg(operand(i).slot, lane, v); }

int UnitCall::thread(int lane) const { return kw.warp().thread(lane); }

void UnitCall::emit(EventKind kind, const std::map<std::string, std::string>& detail) const {
    kw.warp().emit(op, event_lanes(), kind, detail);
}

void UnitCall::spend(double cycles) const { kw.warp().spend(cycles); }

EventSite UnitCall::site(int lane) const { return kw.warp().site(op, lane); }

int UnitCall::own_rank() const {
    CtaModule& cta = kw.warp().cta();
    return cta.index() % cta.run().scenario.launch.cluster_size();
}

std::pair<std::string, int64_t> UnitCall::buffer_at(int64_t offset) const {
    const SharedSymbol* s = kw.layout().shared_symbol_at(offset);
    if (!s) return {"shared", 0};
    return {demangled(s->name), s->offset};
}

MemPlace UnitCall::place(uint64_t addr, int lane, int64_t bytes, int nth_space) const {
    (void)lane;
    const std::string space = ptx::memory_space(ins(), nth_space);
    const KernelLayout& l = kw.layout();
    const int csize = kw.warp().cta().run().scenario.launch.cluster_size();
    auto shared = [&](uint64_t a, bool cluster) -> MemPlace {
        MemPlace p;
        const uint64_t tag = a >> kClusterRankShift;
        p.offset = static_cast<int64_t>(a & ((uint64_t(1) << kClusterRankShift) - 1));
        if (tag != 0 && !cluster)
            throw std::out_of_range(fmt::format("a shared::cta access at {:#x}, an address of another CTA's shared memory "
                                                "(a shared::cluster address from mapa)", a));
        p.rank = tag == 0 ? own_rank() : static_cast<int>(tag - 1);
        if (tag > static_cast<uint64_t>(csize))
            throw std::out_of_range(fmt::format("shared::cluster address {:#x} names CTA rank {}, outside the cluster of {}",
                                                a, tag - 1, csize));
        p.kind = p.rank == own_rank() ? MemPlace::Kind::shared : MemPlace::Kind::dsmem;
        if (p.offset < 0 || p.offset + bytes > l.shared_bytes)
            throw std::out_of_range(fmt::format("{} bytes at shared offset {} leave the CTA's {} bytes of shared memory",
                                                bytes, p.offset, l.shared_bytes));
        return p;
    };
    auto global = [&](uint64_t a) -> MemPlace {
        const auto g = l.global_at(a);
        if (!g) throw std::out_of_range(fmt::format("global address {:#x} is in no tensor of the scenario and no .global variable", a));
        if (g->offset + bytes > g->size)
            throw std::out_of_range(fmt::format("{} bytes at {:#x} run past the end of {} ({} bytes)", bytes, a, g->name, g->size));
        MemPlace p;
        p.kind = g->kind == GlobalPlace::Kind::tensor ? MemPlace::Kind::tensor : MemPlace::Kind::module_global;
        p.offset = g->offset;
        p.tensor = g->name;
        p.index = g->index;
        return p;
    };
    if (space == "shared") return shared(addr, false);
    if (space == "shared::cluster") return shared(addr, true);
    if (space == "global") return global(addr);
    if (space.empty()) {  // a generic address: its window says the space
        // The generic shared window holds every CTA of the cluster's shared memory (mapa's
        // generic form names a peer's).
        if (addr >= kSharedWindow && addr < kSharedWindow + kWindowBytes) return shared(addr - kSharedWindow, true);
        if (addr >= kLocalWindow && addr < kLocalWindow + kWindowBytes) {
            MemPlace p;
            p.kind = MemPlace::Kind::local;
            p.offset = static_cast<int64_t>(addr - kLocalWindow);
            if (p.offset + bytes > kw.local_bytes())
                throw std::out_of_range(fmt::format("{} bytes at local offset {} leave the thread's {} local bytes", bytes, p.offset,
                                                    kw.local_bytes()));
            return p;
        }
        if (addr >= kParamWindow && addr < kParamWindow + kWindowBytes) {
            MemPlace p;
            p.kind = MemPlace::Kind::param;
            p.offset = static_cast<int64_t>(addr - kParamWindow);
            if (p.offset + bytes > static_cast<int64_t>(l.params.size()))
                throw std::out_of_range(fmt::format("{} bytes at param offset {} leave the kernel's {} param bytes", bytes,
                                                    p.offset, l.params.size()));
            return p;
        }
        return global(addr);
    }
    throw std::out_of_range(fmt::format("`{}` names the {} space, which the model does not route to a unit", ins().opcode, space));
}

}  // namespace tmasim::model::kernel
