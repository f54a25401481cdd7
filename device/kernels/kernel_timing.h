#pragma once
// The timing buffer a rewritten kernel wrote (device/kernels/ptx_timing.h) -> TraceRecords, which
// device/launch/trace_records.h turns into CTA spans and trace events as for op scenarios.
#include <cstdint>
#include <vector>

#include "device/emit/kernel_abi.h"
#include "device/kernels/ptx_timing.h"
#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::device {

struct KernelTiming {
    // Per thread that entered: a kRecordEntry (and a kRecordExit once it exited) with its
    // %clock64 and %globaltimer; then one kRecordOp or kRecordWait per stored record.
    std::vector<TraceRecord> records;
    int64_t records_dropped = 0;        // made once the thread's slots were full
    int64_t threads_without_entry = 0;  // a region never written: the thread did not run
    int64_t threads_without_exit = 0;
};

// Decodes `buffer` (threads of the grid * layout.thread_bytes() bytes). A record's event key is
// the model's: op = its op id, cta and warp from the thread's region, lane = the recording lane
// (the lowest that executed it), iters = {the warp's count of that op before it}, counted in the
// order of the records' begin clocks over all the warp's lanes (a warp runs one instance at a
// time; its diverged paths each record their own). ns come from the clocks by the line through
// the CTA's earliest entry and latest exit (%clock64 and %globaltimer read together; one SM
// clock per CTA), else at `sm_clock_mhz` from the earliest entry. Throws std::runtime_error
// for a buffer of another size or a record no rewrite could have written (an op id past the
// program's).
KernelTiming decode_kernel_timing(const Scenario& s, const TimingLayout& layout, const std::vector<uint8_t>& buffer,
                                  int sm_clock_mhz);

// What the launches of a kernel run gave: the kernel as written (its time, its memory) and
// the kernel rewritten for timing (its time, memory and timing buffer).
struct KernelRunPieces {
    double untouched_ms = 0, rewritten_ms = 0;
    std::vector<MemoryImage> memory;            // the kernel as written: the trace's memory lines
    std::vector<MemoryImage> rewritten_memory;  // compared with `memory`, not written
    std::vector<uint8_t> timing;
};
// Fills `r` from them: memory, events (decode_trace of the decoded records) and the header's
// `extra`: kernel_time_ns (the kernel as written, CUDA events), rewritten_kernel_time_ns,
// kernel_span_ns and cta_span_ns (%globaltimer of the rewritten kernel, as for op scenarios),
// ptx_rewrite (what was inserted), timing_records_per_thread, timing_records_dropped and
// timing_threads_without_exit (when not 0), rewritten_memory ("equal", or "differs: A, B").
void add_kernel_run(RunResult& r, const Scenario& s, const TimingRewrite& rewrite, const KernelRunPieces& pieces,
                    int sm_clock_mhz);

}  // namespace tmasim::device
