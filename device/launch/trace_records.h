#pragma once
// The clock words a kernel wrote -> TraceRecords -> TraceEvents.
#include <cstdint>
#include <vector>

#include "device/emit/kernel_abi.h"
#include "device/emit/trace_plan.h"
#include "scenarios/trace_level.h"
#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::device {

// The trace buffer a kernel wrote (trace_plan.h: per warp a WarpTraceHeader and its 32-bit
// clock words), decoded into TraceRecords: the CTA and warp from the region; each word's op
// and loop indices from the plan's instance order; an op's begin from its own begin word or
// the word before it; the records of ops the warp's threads ran (static selectors; `elected`
// at the header's leader lane); an op the header's hang_word falls on as begun, never ended;
// 64-bit clocks from the low words, each after the one before it in the warp (an op longer
// than 2^32 cycles, 2.1 s at 2 GHz, would read short: the default watchdog ends a wait at 1 s);
// `ns` by the line through the warp's entry and exit clock/%globaltimer pairs (a warp
// without exit: its CTA's other warps' rate, else `sm_clock_mhz`). Entry and exit records
// carry those pairs. Throws std::runtime_error on a header no kernel could have written.
std::vector<TraceRecord> decode_warp_regions(const Scenario& s, const TracePlan& plan, const TraceBufferLayout& layout,
                                             const std::vector<uint32_t>& buffer, int sm_clock_mhz);

// Per CTA, the earliest warp entry and the latest warp exit, %globaltimer ns from the
// kernel's first entry ({-1, -1} for a CTA without records; exit -1 when no warp exited).
struct CtaSpan {
    int64_t entry_ns = -1, exit_ns = -1;
};
std::vector<CtaSpan> cta_spans(const std::vector<TraceRecord>& records, int num_ctas);

// Two events per record (issue/complete or wait_begin/wait_end; a timed-out wait gives
// wait_begin only). t = clock - t0 of the CTA (t0 = the earliest warp entry clock of that
// CTA); t_ns = globaltimer - the earliest entry of the kernel. Sorted by
// (cta, t, op, warp, lane, kind). Entry records give no events.
std::vector<TraceEvent> decode_trace(const std::vector<TraceRecord>& records);

}  // namespace tmasim::device
