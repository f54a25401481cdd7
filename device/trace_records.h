#pragma once
// Trace records written by the kernel -> TraceEvents, and the number of records a run
// will write (the size of the trace buffer).
#include <cstdint>
#include <vector>

#include "device/kernel_abi.h"
#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::device {

// Slots one warp's trace region needs: the entry record plus one per op instance (loop
// counts evaluated per CTA; the largest CTA wins). Every warp advances its slot counter
// for each op it records, so a slot is never shared and no atomic is needed.
int64_t records_per_warp(const Scenario& s);

// Two events per record (issue/complete or wait_begin/wait_end; a timed-out wait gives
// wait_begin only). t = clock - t0 of the CTA (t0 = the earliest warp entry clock of that
// CTA); t_ns = globaltimer - the earliest entry of the kernel. Sorted by
// (cta, t, op, warp, lane, kind). Entry records give no events.
std::vector<TraceEvent> decode_trace(const std::vector<TraceRecord>& records);

}  // namespace tmasim::device
