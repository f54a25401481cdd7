#pragma once
// Trace records written by the kernel -> TraceEvents, and the number of records a run
// will write (the size of the trace buffer).
#include <cstdint>
#include <vector>

#include "device/kernel_abi.h"
#include "scenarios/trace_level.h"
#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::device {

// Slots one warp's trace region needs: the entry and exit records (two slots each: the clock,
// then the %globaltimer) plus one per instance of
// an op traced at `level` (loop counts evaluated per CTA; the largest CTA wins). Every warp
// advances its slot counter for each op it records, so a slot is never shared and no
// atomic is needed.
int64_t records_per_warp(const Scenario& s, TraceLevel level = TraceLevel::all);

// The regions the kernel wrote (`s.launch.num_warps()` per CTA, `capacity` records each, in
// (cta, warp) order; never-written slots hold 0xff bytes) widened into TraceRecords: CTA and
// warp from the region; loop indices from the op's instance count (a warp records an op's
// instances in program order, so its k-th record of op X is X's k-th instance in its CTA);
// each op's ns from its clocks by the line through the warp's entry and exit records. A warp
// with no exit record (it stopped at a hang) uses its CTA's other warps' rate, else
// `sm_clock_mhz`.
std::vector<TraceRecord> widen_records(const Scenario& s, const std::vector<DeviceRecord>& regions,
                                       unsigned capacity, int sm_clock_mhz);

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
