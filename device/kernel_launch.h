#pragma once
// One launch of a scenario's kernel: device buffers (global tensors, trace, status, shared
// dump, snapshot area), tensor maps, the launch itself, and reading the results back.
#include <cuda.h>

#include <string>
#include <vector>

#include "device/gpu_session.h"
#include "device/kernel_abi.h"
#include "device/trace_plan.h"
#include "scenarios/trace_level.h"
#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::device {

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
    CUfunction load_other(const std::vector<char>& cubin, const char* name);
    double run_other(CUfunction fn);
    // Clock words per warp the trace buffer holds.
    int64_t trace_capacity() const { return trace_layout_.capacity; }

    DeviceStatus status();
    std::vector<TraceRecord> trace_records();       // the warps' clock words, decoded
    int trace_overflowed_warps() const { return trace_overflowed_warps_; }  // after trace_records()
    std::vector<MemoryImage> global_memory();       // every global tensor, declaration order
    std::vector<MemoryImage> shared_memory();       // per CTA, every shared buffer (element)
    std::vector<MemoryImage> snapshots();           // every shared.snapshot taken, (cta, op, iters)

private:
    double launch(CUfunction fn);

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
    TracePlan trace_plan_;
    TraceBufferLayout trace_layout_;
    int64_t smem_bytes_ = 0;
    int trace_overflowed_warps_ = 0;
    unsigned long long watchdog_ns_ = 0;
    bool have_status_ = false;
    DeviceStatus status_copy_{};
};

}  // namespace tmasim::device
