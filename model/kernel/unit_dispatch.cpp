#include "model/kernel/unit_dispatch.h"

#include <stdexcept>

#include <fmt/format.h>

#include "model/kernel/unit_call.h"
#include "model/kernel/unit_families.h"

namespace tmasim::model::kernel {

void dispatch_unit(KernelWarp& kw, const DInst& d, const UnitInstruction& u, const Op& op, uint32_t exec) {
    UnitCall c(kw, d, u, op, exec);
    switch (op_family(op.kind)) {
        case OpFamily::barrier: return unit_mbarrier(c);
        case OpFamily::barrier_wait: return unit_mbarrier_wait(c);
        case OpFamily::cta_sync:
        case OpFamily::named_barrier: return unit_bar_sync(c);
        case OpFamily::fence: return unit_fence(c);
        case OpFamily::cluster_barrier: return unit_cluster_barrier(c);
        case OpFamily::async_copy: return unit_bulk_copy(c);
        case OpFamily::bulk_group: return unit_bulk_group(c);
        case OpFamily::per_thread:
        case OpFamily::kernel_memory: return unit_memory(c);
        case OpFamily::cp_async: return unit_cp_async(c);
        case OpFamily::st_async: return unit_st_async(c);
        case OpFamily::tensormap: return unit_tensormap(c);
        case OpFamily::wgmma: return unit_wgmma(c);
        case OpFamily::snapshot:
        case OpFamily::compute:
        case OpFamily::loop:
        case OpFamily::layout: break;  // the op language's own: no PTX instruction is one of these
    }
    throw std::logic_error(fmt::format("model: {} reached the PTX front end's dispatch", op.display()));
}

}  // namespace tmasim::model::kernel
