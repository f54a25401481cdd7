#pragma once
// The binary contract between the generated kernel and the host: trace records (DeviceRecord
// as written, TraceRecord as decoded), the status
// block (trace counter, watchdog hang report) and the kernel's name and parameter order.
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
    kRecordExit = 3,   // a warp finished its ops (with the entry record: its clock-to-ns rate)
    kRecordTimer = 4,  // follows an entry or exit record: its %globaltimer
    kRecordEmpty = 7,  // a slot never written (the buffer is pre-filled with 0xff)
};

// What the kernel writes per record: 16 bytes, one store, no %globaltimer read (an entry or
// exit record is followed by a timer record that carries one). The CTA and warp are the
// region's and the loop indices follow from the op's instance count in program order, so
// neither is stored; the host widens each record into a TraceRecord (trace_records.h).
struct DeviceRecord {
    uint64_t clk;   // %clock64 before the op (timer records: %globaltimer)
    uint32_t end;   // low 32 bits of %clock64 after the op (a wait that timed out: clk's own)
    uint32_t meta;  // kind (bits 0-2) | ended (bit 3) | lane (bits 4-8) | op id (bits 9-31)
};
static_assert(sizeof(DeviceRecord) == 16, "DeviceRecord layout is part of the kernel ABI");

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
static_assert(sizeof(TraceRecord) == 80, "TraceRecord layout is part of the kernel ABI");

struct DeviceStatus {
    uint32_t trace_unused;    // kept for the layout (records need no counter: per-warp slots);
                              // the load sink's never-taken store writes here
    uint32_t trace_dropped;   // records that did not fit in their warp's region (added once
                              // per warp at its exit)
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

// Device declarations of TraceRecord, DeviceStatus, TensorMapParam and the trace/hang
// helpers the generated code calls, with the layout static_asserts.
std::string kernel_abi_device_source();

}  // namespace tmasim::device
