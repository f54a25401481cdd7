#pragma once
// A kernel scenario on the GPU (run_device dispatches here for a scenario with `kernel:`): the
// bound PTX loaded by the driver as it is and rewritten for timing (device/ptx_timing.h), both
// launched on the scenario's tensors, maps and params (device/kernel_module_launch.h).
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
#include "device/run_device.h"

namespace tmasim::device {

// Throws DeviceUnavailable (no driver or GPU, a GPU the PTX's target cannot run on),
// ScenarioError (a param or launch the device refuses, naming its key) and std::runtime_error.
RunResult run_kernel_device(const Scenario& s, const DeviceOptions& options);

// Throws DeviceUnavailable unless a GPU of compute capability `cc_major`.`cc_minor` runs PTX of
// the module's `.target`s: sm_90a only on 9.0, sm_100f on 10.x, plain sm_XY from XY up.
void require_ptx_targets(const std::vector<std::string>& targets, int cc_major, int cc_minor, const std::string& gpu);

}  // namespace tmasim::device
