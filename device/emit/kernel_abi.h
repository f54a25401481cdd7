#pragma once
// The binary contract between the generated kernel and the host: each warp's trace region
// (WarpTraceHeader and its clock words, as written; TraceRecord, as decoded), the status
// block (watchdog hang report) and the kernel's name and parameter order.
// The device declares the same structs in kernel_abi_device_source(); the generated source
// static_asserts their sizes against the numbers below, so a mismatch fails
// at NVRTC compile time instead of corrupting a trace.
#include <cstdint>
#include <string>

namespace tmasim::device {

constexpr const char* kKernelName = "tmasim_scenario_kernel";
constexpr int kMaxLoopDepth = 4;  // loop indices a trace record carries

enum RecordKind : int32_t {
    kRecordOp = 0,     // issue / complete
    kRecordWait = 1,   // wait_begin / wait_end
    kRecordEntry = 2,  // a warp entered the kernel (t0 of its CTA)
    kRecordExit = 3,   // a warp finished its ops (with its entry: its clock-to-ns rate)
};

// The start of each warp's region of the trace buffer; the warp's clock words (the low 32
// bits of %clock64) follow it (device/emit/trace_plan.h says which op instance each belongs to). Lane 0 writes the
// header at exit; a thread that stops at a hang writes the entry fields and `hang_word`.
// The host fills the buffer with 0xff bytes first: all ones reads as "never written".
struct WarpTraceHeader {
    uint64_t entry_clock, entry_ns;  // %clock64 and %globaltimer, first thing in the kernel
    uint64_t start_clock;            // %clock64 after the prologue: where the first op begins
    uint64_t exit_clock, exit_ns;    // the same pair after the warp's last op
    uint32_t words;                  // clock words the warp stored
    uint32_t leader_lane;            // the lane elect.sync chose (`elected` ops run there)
    uint32_t hang_word;              // the word an op that never ended would have ended in
    uint32_t pad;
    uint64_t reserved;
};
static_assert(sizeof(WarpTraceHeader) == 64, "WarpTraceHeader layout is part of the kernel ABI");
constexpr int kTraceHeaderWords = sizeof(WarpTraceHeader) / 4;  // in 32-bit words

struct TraceRecord {
    int32_t op;        // Op::id (-1 for entry records)
    int32_t cta;
    int32_t warp;
    int32_t lane;      // 0 for warp-wide selectors
    int32_t kind;      // RecordKind
    int32_t ended;     // 0: a wait that timed out (no wait_end)
    int32_t niters;
    int32_t pad;
    int32_t iters[kMaxLoopDepth];
    uint64_t clk_begin, clk_end;  // %clock64 around the op
    uint64_t ns_begin, ns_end;    // %globaltimer at those clocks (entry/exit: read; ops: derived)
};
static_assert(sizeof(TraceRecord) == 80, "TraceRecord: four 64-bit clocks after 12 ints");

struct DeviceStatus {
    uint32_t trace_unused;    // kept for the layout; the load sink's never-taken store writes here
    uint32_t trace_dropped;   // kept for the layout (unused: every trace word has its place)
    int32_t hang_flag;        // 1 once a wait timed out; the first timer-out fills the rest
    int32_t hang_threads;     // threads that timed out
    int32_t hang_op;
    int32_t hang_cta;
    int32_t hang_warp;
    int32_t hang_lane;
    int32_t hang_barrier;     // index into Scenario::barriers
    int32_t hang_barrier_index;  // element of a barrier array
    int32_t hang_parity;
    int32_t hang_niters;
    int32_t hang_iters[kMaxLoopDepth];
    int32_t hang_kind;        // HangKind of the reported hang
    int32_t pad;
    uint64_t hang_waited_ns;
};
static_assert(sizeof(DeviceStatus) == 80, "DeviceStatus layout is part of the kernel ABI");

// What the first reported hang was (DeviceStatus::hang_kind).
enum HangKind : int32_t {
    kHangMbarrierWait = 0,      // an mbarrier wait outlived the watchdog
    // A thread reached cluster.wait without a barrier.cluster.arrive since its last wait:
    // the phase would need its own arrival, and barrier.cluster.wait cannot time out, so the
    // kernel reports it instead of executing the wait, and the thread exits.
    kHangClusterWaitUnarrived = 1,
};

// Device declarations of WarpTraceHeader, DeviceStatus, TensorMapParam and the trace/hang
// helpers the generated code calls, with the layout static_asserts.
std::string kernel_abi_device_source();

}  // namespace tmasim::device
