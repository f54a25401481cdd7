#pragma once
// One launch of a scenario's kernel: device buffers (global tensors, trace, status, shared
// dump, snapshot area), tensor maps, the launch itself, and reading the results back.
#include <cuda.h>

#include <string>
#include <vector>

#include "device/gpu_session.h"
#include "device/kernel_abi.h"
#include "device/trace_ring.h"
#include "scenarios/trace_level.h"
#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::device {

// Records per warp region of a launch at `level`, and the ring a traced launch keeps them in.
unsigned trace_capacity_for(const Scenario& s, TraceLevel level);
TraceRingSize plan_trace_ring(const Scenario& s, TraceLevel level, const GpuInfo& gpu);
// What the kernel source needs in front of it for that ring: "#define
// TMASIM_TRACE_RING_HOLDS_ALL" when the ring holds the whole region (one predicate per record
// store), else nothing.
std::string trace_ring_defines(const Scenario& s, TraceLevel level, const GpuInfo& gpu);

class KernelLaunch {
public:
    KernelLaunch(GpuSession& gpu, const Scenario& s, double watchdog_seconds,
                 TraceLevel level = TraceLevel::all);

    // Loads the cubin, uploads initial tensors, encodes the tensor maps and sizes shared
    // memory. Throws std::runtime_error (a map that does not encode, too much shared
    // memory) or CudaError.
    void prepare(const std::vector<char>& cubin);
    // Launches and waits. Throws CudaError when the kernel faults.
    void run();
    // The last launch's time between two CUDA events around it (ms).
    double kernel_ms() const { return kernel_ms_; }
    // Another kernel with the same parameter list (a reference kernel for the benchmark),
    // launched like the scenario's on the same buffers and tensor maps; returns its time (ms).
    // It gets the shared memory of the launch without a trace ring, and a ring of 0 slots.
    CUfunction load_other(const std::vector<char>& cubin, const char* name);
    double run_other(CUfunction fn, bool with_ring = false);
    // Records per warp the traced launch keeps in shared memory (0: none).
    unsigned trace_ring_slots() const { return ring_.slots; }

    DeviceStatus status();
    std::vector<TraceRecord> trace_records();       // the records that fit in the buffer, widened
    std::vector<MemoryImage> global_memory();       // every global tensor, declaration order
    std::vector<MemoryImage> shared_memory();       // per CTA, every shared buffer (element)
    std::vector<MemoryImage> snapshots();           // every shared.snapshot taken, (cta, op, iters)

private:
    double launch(CUfunction fn, bool with_ring);

    GpuSession& gpu_;
    const Scenario& s_;
    double watchdog_seconds_;
    TraceLevel level_;
    double kernel_ms_ = 0;
    CUfunction fn_ = nullptr;
    std::vector<CUtensorMap> maps_;
    std::vector<CUdeviceptr> global_maps_;  // maps declared location: global, in map order
    std::vector<CUdeviceptr> globals_;
    CUdeviceptr trace_ = 0, status_ = 0, dump_ = 0, snapshot_area_ = 0;
    unsigned trace_capacity_ = 0;
    unsigned long long watchdog_ns_ = 0;
    TraceRingSize ring_;
    bool have_status_ = false;
    DeviceStatus status_copy_{};
};

}  // namespace tmasim::device
