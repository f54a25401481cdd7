#pragma once
// One kernel scenario on the GPU: its global tensors (filled with their declared init), its
// tensor maps (encoded for those tensors), its param buffer (device/kernels/kernel_params.h), and the
// modules launched on them: the bound PTX as written and rewrites of it (device/kernels/ptx_timing.h),
// each launched with the scenario's grid, cluster and dynamic shared memory and waited for
// under a watchdog. A kernel's own spin loops cannot be relied on to end, so a launch that does
// not finish within the watchdog is a hang; the kernel then still runs, and nothing more can be
// done in this context (the CLI runs each scenario in a child process, whose exit ends it).
#include <cuda.h>

#include <string>
#include <vector>

#include "device/launch/gpu_session.h"
#include "device/kernels/kernel_params.h"
#include "ptx/module.h"
#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::device {

struct LoadedKernel {
    std::string what;                 // "the kernel as written", for messages
    CUfunction fn = nullptr;
    CUdeviceptr timing_variable = 0;  // the rewrite's kTimingVariable; 0 in the kernel as written
    int static_shared = 0;            // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES
};

struct KernelLaunchResult {
    enum class Status { finished, hang, refused, fault };
    Status status = Status::finished;
    double ms = 0;                    // CUDA events around the launch (finished)
    std::string call, error_name, error_message;  // refused (the launch call failed) or fault (the kernel did)
};

class KernelScenarioLaunch {
public:
    KernelScenarioLaunch(GpuSession& gpu, const Scenario& s, const ptx::Function& entry);

    // Allocates and fills the global tensors, encodes the tensor maps and builds the params.
    // Throws ScenarioError (a param or launch dimension the device cannot take, naming its key),
    // std::runtime_error (a map the driver does not encode) or CudaError.
    void prepare();
    // Loads PTX text and sets what the launch needs of its function: the dynamic shared memory
    // opt-in (static + dynamic above 48 KiB), non-portable cluster sizes (above 8). Throws
    // ScenarioError naming launch.dynamic_shared / launch.block / launch.cluster for what the
    // function or the GPU cannot take, std::runtime_error when the JIT refuses the PTX.
    LoadedKernel load(const std::string& ptx, const std::string& what, bool has_timing_variable, bool line_info = false);
    // Points a rewritten module's kTimingVariable at `buffer`.
    void set_timing_buffer(const LoadedKernel& k, CUdeviceptr buffer);
    void reset_memory();  // every global tensor back to its declared init
    // Launches and waits for the kernel (cuEventQuery) at most `watchdog_s` seconds.
    KernelLaunchResult launch(const LoadedKernel& k, double watchdog_s);
    std::vector<MemoryImage> global_memory();  // every global tensor, in declaration order

    const ParamBuffer& params() const { return params_; }
    const LaunchDims& dims() const { return dims_; }

private:
    GpuSession& gpu_;
    const Scenario& s_;
    const ptx::Function& entry_;
    LaunchDims dims_;
    ParamBuffer params_;
    std::vector<CUdeviceptr> globals_;
    std::vector<std::vector<uint8_t>> init_;  // each tensor's declared bytes (the bench resets often)
    std::vector<void*> param_pointers_;
};

}  // namespace tmasim::device
