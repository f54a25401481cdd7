#pragma once
// One launch of a scenario's kernel: device buffers (global tensors, trace, status, shared
// dump, snapshot area), tensor maps, the launch itself, and reading the results back.
#include <cuda.h>

#include <string>
#include <vector>

#include "device/emit/codegen.h"
#include "device/launch/gpu_session.h"
#include "device/emit/kernel_abi.h"
#include "device/emit/trace_plan.h"
#include "scenarios/trace_level.h"
#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::device {

// Where a launch of `s` at `level` on this GPU keeps its trace words (trace_plan.h); the
// kernel must be generated for the same place (generate_kernel_source's `words_in`).
TraceWordPlace plan_trace_words(const Scenario& s, TraceLevel level, const GpuInfo& gpu);
TraceWordsIn trace_words_in(const TraceWordPlace& place);

class KernelLaunch {
public:
    // `words_in`: where the kernel (generated for it) keeps its trace words.
    KernelLaunch(GpuSession& gpu, const Scenario& s, double watchdog_seconds, TraceLevel level = TraceLevel::all,
                 TraceWordsIn words_in = TraceWordsIn::global);

    // Loads the cubin, uploads initial tensors, encodes the tensor maps and sizes shared
    // memory. Throws std::runtime_error (a map that does not encode, too much shared
    // memory) or CudaError.
    void prepare(const std::vector<char>& cubin);
    // Launches and waits. Throws CudaError when the kernel faults. With warm launches, the
    // kernel first runs that many times, each from the memory prepare() left (tensors,
    // maps, trace and status buffers put back), so the recorded launch finds its code and
    // constants cached and its pages mapped as a kernel launched again and again does.
    void run(int warm_launches = 0);
    // The last launch's time between two CUDA events around it (ms).
    double kernel_ms() const { return kernel_ms_; }
    // Another kernel with the same parameter list (a reference kernel for the benchmark),
    // launched like the scenario's on the same buffers and tensor maps; returns its time (ms).
    // `traced`: the kernel stores trace words (it gets the traced launch's shared memory).
    CUfunction load_other(const std::vector<char>& cubin, const char* name);
    double run_other(CUfunction fn, bool traced = false);
    // Clock words per warp the trace buffer holds, and whether they stay in shared memory.
    int64_t trace_capacity() const { return trace_layout_.capacity; }
    bool trace_words_in_shared() const { return words_in_ == TraceWordsIn::shared; }

    DeviceStatus status();
    std::vector<TraceRecord> trace_records();       // the warps' clock words, decoded
    std::vector<MemoryImage> global_memory();       // every global tensor, declaration order
    std::vector<MemoryImage> shared_memory();       // per CTA, every shared buffer (element)
    std::vector<MemoryImage> snapshots();           // every shared.snapshot taken, (cta, op, iters)

private:
    double launch(CUfunction fn, bool traced);
    void upload_initial_memory();  // the global tensors and global maps as declared
    void clear_output_buffers();   // trace words "never written", status, dump and snapshots zero

    GpuSession& gpu_;
    const Scenario& s_;
    double watchdog_seconds_;
    TraceLevel level_;
    TraceWordsIn words_in_;
    double kernel_ms_ = 0;
    CUfunction fn_ = nullptr;
    std::vector<CUtensorMap> maps_;
    std::vector<CUdeviceptr> global_maps_;  // maps declared location: global, in map order
    std::vector<CUdeviceptr> globals_;
    CUdeviceptr trace_ = 0, status_ = 0, dump_ = 0, snapshot_area_ = 0;
    size_t dump_bytes_ = 0, snapshot_bytes_ = 0;  // all CTAs' (the plans of prepare())
    TracePlan trace_plan_;
    TraceBufferLayout trace_layout_;
    TraceWordPlace words_;
    unsigned long long watchdog_ns_ = 0;
    bool have_status_ = false;
    DeviceStatus status_copy_{};
};

}  // namespace tmasim::device
