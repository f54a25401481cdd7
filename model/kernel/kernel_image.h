#pragma once
// What every CTA of a kernel scenario's run shares: the kernel parsed, laid out in memory and
// decoded (made once, before the run starts), and the module's own `.global` variables, which
// any CTA may write.
#include <deque>
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

    // A declared map with `f`'s fields, for the copies that read a map declaration (gather4's
    // Gather4Copy): made once per distinct map and kept for the run (requests point at it).
    const TensorMap* map_standing_for(const MapFields& f);
    std::deque<TensorMap> standing_maps;
    // PTX instructions the run's warps executed, one per warp per instruction reached (a
    // predicated-off one too): the model's speed is counted in these (bench/kernel_model_perf.sh).
    uint64_t warp_instructions = 0;
    uint64_t thread_instructions = 0;  // the same, counted per lane whose guard holds (GPGPU-Sim's count)
    // Per unit op (index: op id): the CTA-local thread (tid) that ran it, when one thread ran
    // it in every CTA; -1 before any ran it; kSeveralThreads once two did (RunResult::
    // single_thread_ops: what a compute-sanitizer comparison asks of a report's ops).
    static constexpr int kSeveralThreads = -2;
    std::vector<int> op_thread;

    // Parses the scenario's bound kernel, lays it out and decodes it. Throws ScenarioError for
    // what the model cannot run (an unsupported instruction, with its PTX and source line).
    static std::unique_ptr<KernelImage> make(const Scenario& s);
    // The CTA's shared memory as the model's shared layout knows it: its size, no named slots.
    SharedLayout shared_layout() const;
};

}  // namespace tmasim::model::kernel
