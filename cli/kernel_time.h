#pragma once
// The kernel's time as `tmasim run` reports it, in ns and in SM cycles, and where the number
// comes from: the model's prediction (first warp entry to last warp exit, at its arch's SM
// clock) or the device's measurement (CUDA events around the launch, at the GPU's clock).
#include <cstdint>
#include <ostream>
#include <string>

#include "scenarios/run_result.h"
#include "traces/json_output.h"

namespace tmasim::cli {

// Both backends lead with the same span, first warp entry to last warp exit, so the two
// lines compare (tmasim diff compares it too); the device adds its CUDA-event time.
struct KernelTime {
    bool known = false;
    int64_t ns = 0;
    int64_t cycles = 0;
    int clock_mhz = 0;
    std::string source;     // "model", "globaltimer" (device span), "cuda events" (no span)
    std::string meaning;    // where the number comes from, one phrase
    int64_t event_ns = -1;  // device: CUDA events around the launch; -1: none
};

KernelTime kernel_time_of(const Provenance& p);

// "kernel time: 2580 ns (5108 cycles at 1980 MHz), predicted by the model (h200): ..."
void print_kernel_time(const Provenance& p, std::ostream& out);

// {ns, cycles, clock_mhz, source, cuda_event_ns (device)}, null when the run gave no time.
OrderedJson kernel_time_json(const Provenance& p);

}  // namespace tmasim::cli
