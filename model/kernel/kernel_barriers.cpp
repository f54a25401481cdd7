#include "model/kernel/kernel_barriers.h"

#include <stdexcept>

#include <fmt/format.h>

#include "model/sm/cta_module.h"

namespace tmasim::model::kernel {

int barrier_at(KernelImage& img, CtaModule& cta, int64_t offset) {
    if (offset % 8 != 0)
        throw std::out_of_range(fmt::format("an mbarrier at shared offset {} ({}), not 8-byte aligned (PTX 9.7.13.15.1)", offset,
                                            img.layout.shared_name(offset)));
    auto it = img.barrier_index.find(offset);
    if (it == img.barrier_index.end()) {
        const int next = static_cast<int>(img.barrier_index.size());
        if (next >= RunContext::kKernelBarrierSlots)
            throw std::out_of_range(fmt::format("the kernel uses more than {} mbarriers (at {}); the model keeps that many per CTA",
                                                RunContext::kKernelBarrierSlots, img.layout.shared_name(offset)));
        it = img.barrier_index.emplace(offset, next).first;
    }
    cta.barriers().kernel_slot(it->second, offset, img.layout.shared_name(offset), cta.num_threads());
    return it->second;
}

}  // namespace tmasim::model::kernel
