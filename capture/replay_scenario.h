#pragma once
// A captured launch as a kernel scenario (scenarios/FORMAT.md "Kernel scenarios") that replays
// on both backends: the launch's grid, cluster, block and dynamic shared memory; each device
// allocation its params or tensor maps reach as a global tensor initialised from the bytes it
// held before the launch (`init: {file: ...}`); each tensor map it was given, from the
// arguments of the cuTensorMapEncodeTiled call that made it; each param as the kind its bytes
// are (a pointer into an allocation, a map, raw bytes, a params struct holding those).
// What a scenario cannot say is refused with the reason, never approximated.
#include <string>

#include "capture/launch_records.h"

namespace tmasim::capture {

struct ReplayScenario {
    std::string name;       // "capture_003_gemm_device"
    std::string yaml;       // the scenario's text
    std::string refused;    // why the launch cannot be replayed ("": it can)
    // global tensor name -> the content hash of its bytes after the launch (the reference)
    std::vector<std::pair<std::string, std::string>> outputs;
};

struct ReplayContext {
    std::string program;    // the captured command line, for the summary
    std::string gpu;        // what the capture ran on
    std::string ptx_file;   // the PTX path the scenario names, relative to the scenario
    std::string ptx_target; // ".target" of that PTX ("sm_90a")
    std::string data_dir;   // the raw data folder, relative to the scenario ("raw/data")
};

ReplayScenario replay_scenario(const CapturedLaunch& launch, const ReplayContext& context);

// "gemm_device" for a mangled CuTe entry, the name itself for extern "C" ones; [A-Za-z0-9_] only.
std::string short_kernel_name(const std::string& entry);

}  // namespace tmasim::capture
