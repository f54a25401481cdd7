#pragma once
// Trace records written by the kernel -> TraceEvents, and the number of records a run
// will write (the size of the trace buffer).
#include <cstdint>
#include <vector>

#include "device/kernel_abi.h"
#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::device {

// Records the kernel writes when every op runs (entry records included), from the IR:
// loop counts evaluated per CTA, one record per executing thread for single-thread
// selectors, one per warp for warp-wide ones. Capped at `cap`.
int64_t expected_trace_records(const Scenario& s, int64_t cap);

// Two events per record (issue/complete or wait_begin/wait_end; a timed-out wait gives
// wait_begin only). t = clock - t0 of the CTA (t0 = the earliest warp entry clock of that
// CTA); t_ns = globaltimer - the earliest entry of the kernel. Sorted by
// (cta, t, op, warp, lane, kind). Entry records give no events.
std::vector<TraceEvent> decode_trace(const std::vector<TraceRecord>& records);

}  // namespace tmasim::device
