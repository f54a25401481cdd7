#pragma once
// What every CTA of a kernel scenario's run shares: the kernel parsed, laid out in memory and
// decoded (made once, before the run starts), and the module's own `.global` variables, which
// any CTA may write.
#include <map>
#include <memory>
#include <vector>

#include "model/kernel/decoder.h"
#include "model/kernel/kernel_layout.h"
#include "model/state/tensormap_state.h"
#include "ptx/kernel_binding.h"
#include "scenarios/ir.h"
#include "scenarios/layout.h"

namespace tmasim::model::kernel {

struct KernelImage {
    ptx::BoundKernel bound;
    KernelLayout layout;
    DecodedKernel decoded;
    std::vector<std::vector<uint8_t>> module_globals;  // the current bytes of each, by KernelLayout index
    // Each mbarrier's shared offset and the index the run gives it, the same in every CTA (a
    // multicast's or a remote arrive's barrier is the one at the same offset in the peer).
    std::map<int64_t, int> barrier_index;
    // Tensor maps a kernel keeps in global memory, by device address: who wrote each and
    // whether that was released and acquired (B15; their fields are their bytes).
    std::map<uint64_t, std::unique_ptr<GlobalTensorMap>> device_maps;

    // Parses the scenario's bound kernel, lays it out and decodes it. Throws ScenarioError for
    // what the model cannot run (an unsupported instruction, with its PTX and source line).
    static std::unique_ptr<KernelImage> make(const Scenario& s);
    // The CTA's shared memory as the model's shared layout knows it: its size, no named slots.
    SharedLayout shared_layout() const;
};

}  // namespace tmasim::model::kernel
