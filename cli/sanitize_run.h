#pragma once
// `tmasim run FILE|DIR --backend device --sanitize racecheck|synccheck|memcheck|initcheck`:
// each scenario's device run happens under NVIDIA compute-sanitizer. tmasim starts
// `compute-sanitizer --tool TOOL ... tmasim run FILE --backend device --no-isolation
// --line-info` (the kernel compiled with NVRTC -lineinfo, so every report names a line of
// the generated source), reads the trace that run wrote and the tool's text report, and
// adds one diagnostic per finding, naming the scenario ops involved (device/sanitizer/sanitizer_ops.h).
// The provenance's `extra` gets `sanitizer` (the tool) and `sanitizer_findings`; a run that
// ended ok with findings gets their outcome (hazard; fault for memcheck's invalid accesses).
#include <string>
#include <vector>

#include "device/run/run_device.h"
#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::cli {

// A wait that takes 1 ms on its own can take seconds under racecheck's instrumentation:
// without --watchdog, a sanitized run waits this long before it calls a wait a hang.
constexpr double kSanitizerWatchdogSeconds = 10.0;

// What the run under the tool prints (stderr, exit 2) when no device run can happen here:
// run_sanitized then throws device::DeviceUnavailable, so a batch skips the scenario.
constexpr const char* kDeviceUnavailablePrefix = "tmasim: device unavailable: ";

// $TMASIM_COMPUTE_SANITIZER, else compute-sanitizer on PATH, else $CUDA_HOME/bin, else
// /usr/local/cuda/bin. Throws std::invalid_argument (exit 2) saying where it looked.
std::string find_compute_sanitizer();

struct SanitizedRun {
    RunResult result;
    std::string report;  // the tool's text report, as written
};

// Runs `scenario` (loaded from scenario.file) under the tool. Throws
// device::DeviceUnavailable when the run cannot happen here (no GPU, another architecture)
// and std::runtime_error when no run happened otherwise (the kernel did not build, the tool
// did not start); a run that crashed or outlived watchdog + 300 s is a fault or a hang, as
// in device_child.h.
SanitizedRun run_sanitized(const Scenario& scenario, const DeviceOptions& options, const std::string& tool,
                           const std::string& sanitizer);

// For each synccheck finding at an mbarrier arrive-on op, details `barrier` (its declared
// name) and `barrier_waited` ("1" when some op of the scenario waits on it, else "0"): the
// comparison needs them, and a trace keeps only the op's id (traces/sanitizer_verdicts.h).
void note_barrier_waits(std::vector<Diagnostic>& found, const Scenario& scenario);

// "T.jsonl" -> "T.racecheck.txt": where a run's raw report is kept next to its trace.
std::string sanitizer_report_path(const std::string& trace_path, const std::string& tool);

}  // namespace tmasim::cli
