#pragma once
// IR -> CUDA C++ for one scenario: the PTX wrappers, the float conversion helpers, the
// kernel ABI declarations, then `extern "C" __global__ tmasim_scenario_kernel`.
//
// Kernel parameters, in this order (run_device.cpp passes them the same way):
//   const __grid_constant__ TensorMapParam tmap<i>   one per Scenario::tensormaps entry
//   TensorMapParam* gmap<i>                          one per map with location: global, in
//                                                    map order (the 128-byte object TMA reads;
//                                                    tmap<i> is then tensormap.stage's template)
//   unsigned char* global<i>                         one per Scenario::globals entry
//   unsigned* trace_buf, unsigned trace_capacity (clock words per warp; trace_plan.h),
//   DeviceStatus* status,
//   unsigned char* shared_dump, unsigned char* snapshot_area (snapshot_plan.h),
//   unsigned long long watchdog_ns
//
// The generated text never contains a string copied from the YAML: names become indices,
// expressions are re-emitted from their AST, comments use only op ids and op kinds.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "scenarios/trace_level.h"
#include "scenarios/ir.h"

namespace tmasim::device {

// The scenario uses something the device backend cannot express (message names the op).
class CodegenError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Where the timed ops store their clock words while the kernel runs (trace_plan.h,
// place_trace_words): in shared memory, or straight to the trace buffer in global memory.
enum class TraceWordsIn { global, shared };

// Whether the kernel copies its final shared buffers out after its last op, for the byte
// comparison with the model. A hand-written kernel does not: on a one-CTA stream the copy of
// 64 KiB through one SM was 4% of the kernel's time (H200, `bench executor-overhead
// --experiments`, TMASIM_NO_SHARED_DUMP), so a timing run (--trace none) leaves it out.
enum class SharedDump { copy_out, skip };

std::string generate_kernel_source(const Scenario& s, TraceLevel level = TraceLevel::all,
                                   TraceWordsIn words_in = TraceWordsIn::global,
                                   SharedDump dump = SharedDump::copy_out);

// Where each shared buffer element lands in a CTA's slice of the shared dump.
struct SharedDumpEntry {
    std::string name;       // "buf" or "buf[i]"
    int64_t smem_offset;    // from the 1024-aligned shared base
    int64_t size;           // bytes
    int64_t dump_offset;    // in the CTA's slice
};
struct SharedDumpPlan {
    std::vector<SharedDumpEntry> entries;  // declaration order, array elements in order
    int64_t bytes_per_cta = 0;
};
SharedDumpPlan plan_shared_dump(const Scenario& s);

}  // namespace tmasim::device
