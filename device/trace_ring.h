#pragma once
// Where a traced kernel keeps its records while it runs: per warp, a ring of records in
// shared memory after the scenario's own buffers, copied to global memory once, after the
// kernel's last barrier (kernel_abi.cpp, Tracer). The codegen places it (offsets), the launch
// sizes it (slots): as many records as the shared memory the scenario leaves free allows,
// without lowering the number of CTAs an SM can hold for this launch.
#include <cstdint>

#include "scenarios/ir.h"

namespace tmasim::device {

struct TraceRingOffsets {
    int64_t used = 0;   // per warp: the slot count its lanes publish (unsigned), from the aligned base
    int64_t rings = 0;  // warp w's ring at rings + w * slots * 16
};
TraceRingOffsets trace_ring_offsets(const Scenario& s);

// What the GPU allows (cuDeviceGetAttribute) that the ring's size depends on.
struct SmLimits {
    int sm_count = 0;
    int64_t smem_per_sm = 0;         // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
    int64_t reserved_per_block = 0;  // RESERVED_SHARED_MEMORY_PER_BLOCK (the runtime's 1 KiB)
    int64_t max_smem_optin = 0;      // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    int max_threads_per_sm = 0;
    int max_blocks_per_sm = 0;
};

struct TraceRingSize {
    unsigned slots = 0;           // records per warp in shared memory (0: every record goes to global)
    int64_t smem_bytes = 0;       // dynamic shared memory of the traced launch
    int64_t untraced_smem_bytes = 0;  // the same launch without a ring
    int ctas_per_sm = 0;          // what the launch needs an SM to hold, kept with the ring
};
// `records_per_warp`: the warp region's capacity. `traced`: false gives no ring.
TraceRingSize size_trace_ring(const Scenario& s, int64_t records_per_warp, bool traced, const SmLimits& sm);

}  // namespace tmasim::device
