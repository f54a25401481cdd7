#pragma once
// Timing a real kernel without changing what it computes: its PTX rewritten with reads of
// %globaltimer (and, at trace level all or waits, %clock64) inserted by ptx::apply_edits, never
// an instruction of the kernel removed or changed. The kernel's ABI stays as it is: the times go
// to a buffer the device allocates, whose address the rewrite reads from a `.visible .global .u64`
// module variable it declares (kTimingVariable, set with cuModuleGetGlobal before the launch).
//
// The buffer holds one region of thread_bytes() per thread of the grid, in the model's CTA
// order (CTA c = cluster * cluster size + rank in it, clusters x-fastest; thread = c * block +
// tid.x): a 64-byte ThreadTimingHeader, then `records_per_thread` 16-byte TimingRecords.
//   entry:  every thread reads %globaltimer (and %clock64 at all/waits) first thing and stores
//           it in its header;
//   exit:   before each `exit` and `ret` of the entry (guarded like it) and at the body's end
//           when the body can fall through it, the thread reads them again and stores them;
//   ops:    at all (every unit instruction: ptx::unit_op_kind, the ops of s.program) or waits
//           (only the ops that wait), %clock64 before and after the instruction; the lowest
//           lane that executes it (activemask, and its guard's ballot) stores a record {begin,
//           end - begin, op id} at the thread's next slot, counting the records it could not
//           store once the slots are full. A wait's end read is held until the wait is over:
//           predicated on an mbarrier try_wait/test_wait's result, after a bar.warp.sync for
//           bar.sync (a clock read right after BAR.SYNC can issue before its release).
#include <cstdint>
#include <string>
#include <vector>

#include "ptx/kernel_binding.h"
#include "ptx/rewrite.h"
#include "scenarios/ir.h"
#include "scenarios/trace_level.h"

namespace tmasim::device {

constexpr const char* kTimingVariable = "__tmasim_timing";
constexpr const char* kTimingRegisterPrefix = "%tms_";

struct ThreadTimingHeader {
    uint64_t entry_ns, entry_clock;  // %globaltimer, %clock64 (all-ones: never written)
    uint64_t exit_ns, exit_clock;
    uint32_t records;                // records the thread made, stored or not (all/waits)
    uint32_t pad[7];
};
static_assert(sizeof(ThreadTimingHeader) == 64, "the rewrite stores at these offsets");

struct TimingRecord {
    uint64_t begin_clock;
    uint32_t cycles;  // end - begin, low 32 bits
    uint32_t op;      // Op::id
};
static_assert(sizeof(TimingRecord) == 16, "the rewrite stores one v4.u32");

// The layout of the timing buffer a rewrite writes (what the decoder needs).
struct TimingLayout {
    TraceLevel level = TraceLevel::none;
    int64_t records_per_thread = 0;  // 0 at level none
    int64_t thread_bytes() const { return int64_t(sizeof(ThreadTimingHeader)) + records_per_thread * int64_t(sizeof(TimingRecord)); }
};

struct TimingRewrite {
    std::string ptx;
    TimingLayout layout;
    std::vector<ptx::TextEdit> edits;  // what was inserted where (offsets into the bound PTX)
    std::vector<int> timed_ops;        // op ids timed, ascending
    int exits = 0;                     // exit/ret instructions (and a fall-through end) given an exit read
    int held_waits = 0;                // timed waits whose end read waits for the wait
    int64_t inserted_lines = 0;
    std::string summary;               // what was inserted, one line (the trace header's `ptx_rewrite`)
};

// Whether an op gives wait_begin/wait_end (mbarrier try_wait/test_wait, bar.sync, the
// cp.async and bulk wait_group family, wgmma.wait_group) rather than issue/complete.
bool is_kernel_wait(OpKind kind);

// Records per thread for `threads` threads at `level`: 0 at none, else `per_thread` rounded up
// to a multiple of 4 (the regions stay 64-byte aligned), lowered so that the buffer stays
// within `budget_bytes`, and at least 4.
int64_t timing_records_per_thread(int64_t threads, TraceLevel level, int64_t per_thread = 2048,
                                  int64_t budget_bytes = int64_t(256) << 20);

// The bound kernel `k` of scenario `s` rewritten for `layout`. Throws std::runtime_error when it
// cannot be done without changing the kernel: a register or symbol of the module already uses
// the rewrite's names, the scenario's ops are not the PTX's unit instructions in order, or a
// timed op lies in a `.func` the entry calls (only the entry's instructions are rewritten; run
// such a kernel at --trace none).
TimingRewrite rewrite_for_timing(const Scenario& s, const ptx::BoundKernel& k, const TimingLayout& layout);

}  // namespace tmasim::device
