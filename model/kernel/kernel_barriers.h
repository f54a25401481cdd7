#pragma once
// A kernel's mbarriers: 8-byte words of shared memory the CTA's BarrierSet meets by offset.
#include <cstdint>

#include "model/kernel/kernel_image.h"

namespace tmasim::model {
class CtaModule;
}

namespace tmasim::model::kernel {

// The index of the mbarrier at shared offset `offset` (one index per offset for the whole
// run), its slot made in `cta` if it was not. Throws std::out_of_range for an offset that is
// not 8-byte aligned, and once the run has more barriers than the proxy tracker keeps.
int barrier_at(KernelImage& img, CtaModule& cta, int64_t offset);

}  // namespace tmasim::model::kernel
