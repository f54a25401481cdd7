#pragma once
#include <functional>
// The device backend: run one scenario on the GPU in this process and return what
// happened (outcome, diagnostics, trace events, final memory). The CLI calls it in a child
// process so that a fault cannot take the batch down.
#include <string>
#include <vector>

#include "scenarios/trace_level.h"
#include "scenarios/ir.h"
#include "scenarios/run_result.h"
#include "device/launch/device_unavailable.h"

namespace tmasim {

struct DeviceOptions {
    double watchdog_seconds = 1.0;  // an mbarrier wait longer than this is a hang
    std::string cache_dir;          // cubin cache; "" = $TMASIM_CACHE_DIR or ~/.cache/tmasim
    TraceLevel trace = TraceLevel::all;  // which ops the kernel times (trace_level.h)
    bool line_info = false;         // NVRTC -lineinfo: what a compute-sanitizer run needs
    // The final shared buffers copied out after the last op (for the byte comparison; the
    // trace then has their images). Off: the kernel ends as a hand-written one would, and the
    // header says `shared_dump: off`. The CLI leaves it off for --trace none.
    bool shared_dump = true;
    // Launches of the same kernel before the recorded one, each from the declared memory again:
    // the recorded launch then finds its code, constants and page mappings warm, as a kernel
    // launched repeatedly does, instead of paying their first fetch (the header says how many).
    // One by default: a cold single launch spent 100-440 cycles more on a short kernel, and the
    // amount varied from launch to launch (traces/recorded/<gpu>/README.md, warm launches).
    int warm_launches = 1;
    // Called with the run's provenance (GPU, clock, driver, how it is timed) once it is known,
    // before the kernel launches: a caller that may have to kill a hung run keeps it.
    std::function<void(const Provenance&)> on_provenance;
};

// --shared-dump's choice ("auto", "on" or "off") at a trace level: auto copies the final shared
// buffers out unless the run times the kernel untraced (--trace none), whose kernel then ends at
// its last op as a hand-written one would. `tmasim run` and `tmasim codegen` decide it here.
inline bool shared_dump_for(const std::string& choice, TraceLevel level) {
    return choice == "auto" ? level != TraceLevel::none : choice == "on";
}

// A kernel scenario (`kernel:`, bound by ptx::bind_kernel) runs its own kernel instead:
// device::run_kernel_device below says how, and what its trace holds.
//
// The provenance's `extra` says how the run was timed: `warm_launches` (when > 0), `trace_level`, `kernel_time_ns` (CUDA
// events around the launch), `kernel_span_ns` (the first warp's entry to the last warp's
// exit, %globaltimer) and `cta_span_ns` ("entry-exit" per CTA in CTA order, ns from the
// kernel's first entry).
//
// Outcome ok, hang (a wait outlived the watchdog; diagnostic rule mbarrier.wait_timeout)
// or fault (a CUDA error during the kernel; diagnostic rule device.cuda_error with CUDA's
// error name and message). The device sees no memory-model hazards: never `hazard`.
//
// Throws tmasim::device::DeviceUnavailable when no run can happen here (no CUDA driver,
// no GPU, a GPU older than the scenario needs) and std::runtime_error for a scenario the
// device backend cannot build (codegen, NVRTC or tensor-map encode errors).
RunResult run_device(const Scenario& scenario, const DeviceOptions& options);

namespace device {

// A kernel scenario on the GPU (run_device dispatches here for a scenario with `kernel:`): the
// bound PTX loaded by the driver as it is and rewritten for timing (device/kernels/ptx_timing.h), both
// launched on the scenario's tensors, maps and params (device/kernels/kernel_module_launch.h).
//
// Each warm launch runs both kernels, then the recorded launches: the kernel as written (its
// memory is the trace's, its CUDA-event time `kernel_time_ns`), then the rewrite (spans, per-op
// events at --trace all or waits; its memory is compared, `rewritten_memory`), each from the
// declared memory. Outcomes: ok; hang (the kernel as written did not finish within the
// watchdog; rule device.kernel_timeout, no op named and no memory read back: the kernel still
// runs, so this process must exit, as the CLI's child does); fault (the launch was refused or
// the kernel faulted; rule device.cuda_error with CUDA's error, the launch's keys named for a
// refusal). A rewrite that hangs or faults where the kernel as written did not is a tmasim
// bug: std::runtime_error, no trace.
//
// Throws DeviceUnavailable (no driver or GPU, a GPU the PTX's target cannot run on),
// ScenarioError (a param or launch the device refuses, naming its key) and std::runtime_error.
RunResult run_kernel_device(const Scenario& s, const DeviceOptions& options);

}  // namespace device

}  // namespace tmasim
