#pragma once
// Runs the device backend in a forked child process. A CUDA fault can poison the context
// or kill the process; a hung kernel can outlive its own watchdog. Isolating each run keeps
// the CLI alive to report it, and gives every run a fresh GPU context.
#include <string>

#include "device/run/run_device.h"
#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::cli {

// Seconds the parent waits beyond the kernel watchdog (JIT compile, context creation and
// the memory dump all happen inside the limit).
constexpr double kDeviceGraceSeconds = 60.0;

// The child's RunResult, read back through a temporary trace file. When the child dies
// from a signal the result is outcome `fault`; when it outlives watchdog + grace it is
// killed and the result is `hang`; either way with a diagnostic saying what happened.
// When run_device itself throws in the child, no run happened, so there is no verdict:
// this throws device::DeviceUnavailable with the child's message when the run cannot happen
// on this machine (no CUDA driver, no GPU, a GPU other than the scenario's arch), and
// std::runtime_error with it for everything else (a codegen or JIT error).
RunResult run_device_isolated(const Scenario& scenario, const DeviceOptions& options);

// Why no scenario can run on this machine's GPU (device::require_device: no CUDA driver, no
// GPU, none new enough, a tmasim built without the toolkit), asked once in a child process;
// "" when a run can start, or when the question itself failed (the runs then say why).
std::string device_unavailable_here();

// A device result for a run that could not report itself (killed, hung, no trace): the
// scenario's provenance and one diagnostic with this outcome, rule and message.
RunResult synthetic_result(const Scenario& s, Outcome outcome, const std::string& rule, const std::string& msg);

// The provenance a killed child left in `path` (GPU, SM clock, driver, CUDA, then
// key=value lines of `extra`), copied into `p`; nothing when the file is missing or
// incomplete (the child died before it opened the GPU).
void apply_child_provenance(const std::string& path, Provenance& p);

// A file's whole text ("" when it cannot be read).
std::string slurp(const std::string& path);

}  // namespace tmasim::cli
