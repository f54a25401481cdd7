#include "device/trace_ring.h"

#include <algorithm>

#include "device/kernel_abi.h"
#include "scenarios/layout.h"

namespace tmasim::device {

namespace {
int64_t round_up_16(int64_t n) { return (n + 15) / 16 * 16; }
constexpr int64_t kAlignSlack = 1024;  // the kernel aligns its dynamic shared memory up to 1024
}  // namespace

TraceRingOffsets trace_ring_offsets(const Scenario& s) {
    TraceRingOffsets o;
    o.used = round_up_16(compute_shared_layout(s).total_bytes);
    o.rings = o.used + round_up_16(4 * int64_t{s.launch.num_warps()});
    return o;
}

TraceRingSize size_trace_ring(const Scenario& s, int64_t records_per_warp, bool traced, const SmLimits& sm) {
    TraceRingSize r;
    r.untraced_smem_bytes = compute_shared_layout(s).total_bytes + kAlignSlack;
    r.smem_bytes = r.untraced_smem_bytes;
    const int64_t warps = s.launch.num_warps();
    if (!traced || warps <= 0 || sm.sm_count <= 0 || sm.smem_per_sm <= 0) return r;
    // CTAs per SM the untraced kernel could have, and how many this grid needs: a ring may
    // take the shared memory of CTAs the launch would never place on the SM anyway.
    const int64_t per_block = r.untraced_smem_bytes + sm.reserved_per_block;
    int64_t fit = sm.smem_per_sm / std::max<int64_t>(1, per_block);
    if (sm.max_threads_per_sm > 0) fit = std::min<int64_t>(fit, sm.max_threads_per_sm / std::max(1, s.launch.block));
    if (sm.max_blocks_per_sm > 0) fit = std::min<int64_t>(fit, sm.max_blocks_per_sm);
    const int64_t ctas = s.launch.num_ctas();
    const int64_t needed = std::max<int64_t>(1, std::min(fit, (ctas + sm.sm_count - 1) / sm.sm_count));
    r.ctas_per_sm = static_cast<int>(needed);
    const int64_t budget = std::min(sm.max_smem_optin, sm.smem_per_sm / needed - sm.reserved_per_block);
    const int64_t ring_start = trace_ring_offsets(s).rings + kAlignSlack;
    const int64_t free_bytes = budget - ring_start;
    if (free_bytes < warps * int64_t{sizeof(DeviceRecord)}) return r;
    const int64_t slots = std::min(records_per_warp, free_bytes / (warps * int64_t{sizeof(DeviceRecord)}));
    r.slots = static_cast<unsigned>(slots);
    r.smem_bytes = ring_start + slots * warps * int64_t{sizeof(DeviceRecord)};
    return r;
}

}  // namespace tmasim::device
