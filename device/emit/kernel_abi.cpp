#include "device/emit/kernel_abi.h"

#include <fmt/format.h>

namespace tmasim::device {

namespace {

// Device side of the ABI. Trace and hang helpers live here, not in the generated body, so
// each op's code stays a few readable lines.
constexpr const char* kDeviceAbi = R"abi(
struct alignas(64) TensorMapParam { unsigned long long v[16]; };  // a CUtensorMap, by value

struct DeviceStatus {
    unsigned trace_unused, trace_dropped;
    int hang_flag, hang_threads, hang_op, hang_cta, hang_warp, hang_lane;
    int hang_barrier, hang_barrier_index, hang_parity, hang_niters;
    int hang_iters[4];
    int hang_kind, pad;
    unsigned long long hang_waited_ns;
};


struct WarpTraceHeader {
    unsigned long long entry_clock, entry_ns, start_clock, exit_clock, exit_ns;
    unsigned words, leader_lane, hang_word, pad;
    unsigned long long reserved;
};

// Each warp's clock words (the low 32 bits of %clock64): one plain, predicated 4-byte store
// per timed op from one lane, no atomic, no fence, no %globaltimer read. They go to shared
// memory after the scenario's buffers when they all fit there (a warp copies its own to its
// region at exit), else straight to its region in global memory; the host decides before it
// generates the kernel (place_trace_words). The host sizes the words for every one the warp
// stores, so the kernel checks nothing: their offsets are constants from a pointer that moves
// only at loop boundaries. What that costs was measured on an H100: four (clock read, shared
// store) pairs add 6 cycles to a loop iteration, and packing four clocks into one 16-byte
// store behind a branch 57 (device/scripts/probes/sync_clock_probe.cu); one global store per
// op made the one-CTA TMA stream 1.4x and the cp.async stream 3.4x slower, a generic store
// into shared memory still 1.4x and 2.7x.

// The pieces of an op's timing, each with the benchmark's experiment that leaves it out
// (`tmasim bench executor-overhead --experiments`, timing only: the words are then wrong):
// the clock read (TMASIM_TRACE_NO_CLOCK) and the __syncwarp that holds a clock read after a
// barrier until the barrier released (TMASIM_TRACE_NO_SYNCWARP). A `thread N` run's words
// are shuffled to the storing lane (trace_take).
__device__ __forceinline__ unsigned long long trace_clock64() {
#if defined(TMASIM_TRACE_NO_CLOCK)
    return 0ull;
#else
    return read_clock64();
#endif
}
// A one-thread run's clock read inside its branch (TMASIM_TRACE_NO_BRANCH_CLOCK leaves it out).
__device__ __forceinline__ unsigned long long trace_clock64_in_branch() {
#if defined(TMASIM_TRACE_NO_BRANCH_CLOCK)
    return 0ull;
#else
    return trace_clock64();
#endif
}
__device__ __forceinline__ unsigned trace_take(unsigned mask, unsigned word, int from_lane) {
    return __shfl_sync(mask, word, from_lane);
}
__device__ __forceinline__ void trace_after_barrier() {
#if !defined(TMASIM_TRACE_NO_SYNCWARP)
    __syncwarp(__activemask());
#endif
}

// The warp's exit: lane 0 writes its header once, after its last op.
__device__ __forceinline__ void trace_exit(WarpTraceHeader* h, unsigned long long entry_clock,
                                           unsigned long long entry_ns, unsigned long long start_clock,
                                           unsigned long long exit_clock, unsigned long long exit_ns,
                                           unsigned words, unsigned leader_lane) {
    h->entry_clock = entry_clock;
    h->entry_ns = entry_ns;
    h->start_clock = start_clock;
    h->exit_clock = exit_clock;
    h->exit_ns = exit_ns;
    h->words = words;
    h->leader_lane = leader_lane;
}

// Words kept in shared memory (from shared address `words`) go to the warp's region: the
// lanes in `lanes` copy the first `n` (16 bytes at a time: both sides hold a multiple of 4
// words), after a __syncwarp that makes the other lanes' stores visible to them.
__device__ __forceinline__ void trace_copy_words(unsigned* region, unsigned words, unsigned n, unsigned lanes) {
    __syncwarp(lanes);
    const unsigned lane = threadIdx.x & 31u;
    const unsigned rank = __popc(lanes & ((1u << lane) - 1u)), step = __popc(lanes);
    for (unsigned i = rank; i < (n + 3u) / 4u; i += step)
        reinterpret_cast<uint4*>(region)[i] = ld_shared_v4_u32(words + 16u * i);
}

// A thread that stops at a hang (watchdog, unarrived cluster wait): the word its op would
// have ended in (the earliest, if its lanes stop at different ops) and the entry fields a
// warp without exit still needs. Lanes store the same values; lane 0 may still exit later.
__device__ __noinline__ void trace_hang(WarpTraceHeader* h, unsigned long long entry_clock,
                                        unsigned long long entry_ns, unsigned long long start_clock,
                                        unsigned leader_lane, unsigned hang_word) {
    h->entry_clock = entry_clock;
    h->entry_ns = entry_ns;
    h->start_clock = start_clock;
    h->leader_lane = leader_lane;
    atomicMin(&h->hang_word, hang_word);
}

// Called by every thread whose mbarrier wait outlived the watchdog; the first one wins the
// report, the others are counted. The caller then returns from the kernel. Loop indices
// come by value: a pointer to the kernel's `it` array would push it to local memory.
__device__ __noinline__ void report_hang(DeviceStatus* st, int op, int cta, int warp, int lane,
                                         int niters, long long i0, long long i1, long long i2,
                                         long long i3, int barrier, int barrier_index,
                                         unsigned parity, unsigned long long waited_ns) {
    atomicAdd(&st->hang_threads, 1);
    if (atomicCAS(&st->hang_flag, 0, 1) != 0) return;
    st->hang_kind = 0;
    st->hang_op = op; st->hang_cta = cta; st->hang_warp = warp; st->hang_lane = lane;
    st->hang_barrier = barrier; st->hang_barrier_index = barrier_index;
    st->hang_parity = (int)parity; st->hang_niters = niters;
    st->hang_iters[0] = niters > 0 ? (int)i0 : 0;
    st->hang_iters[1] = niters > 1 ? (int)i1 : 0;
    st->hang_iters[2] = niters > 2 ? (int)i2 : 0;
    st->hang_iters[3] = niters > 3 ? (int)i3 : 0;
    st->hang_waited_ns = waited_ns;
    __threadfence();
}

// Called instead of barrier.cluster.wait by a thread that has not arrived since its last
// wait: that wait could never return (the phase needs this thread's own arrival) and
// cannot time out. The caller records the wait as begun, never ended, and exits; exited
// threads are not waited for, so the rest of the cluster goes on.
__device__ __noinline__ void report_cluster_wait_unarrived(DeviceStatus* st, int op, int cta, int warp,
                                                           int lane, int niters, long long i0,
                                                           long long i1, long long i2, long long i3) {
    atomicAdd(&st->hang_threads, 1);
    if (atomicCAS(&st->hang_flag, 0, 1) != 0) return;
    st->hang_kind = 1;
    st->hang_op = op; st->hang_cta = cta; st->hang_warp = warp; st->hang_lane = lane;
    st->hang_barrier = -1; st->hang_barrier_index = 0; st->hang_parity = 0;
    st->hang_niters = niters;
    st->hang_iters[0] = niters > 0 ? (int)i0 : 0;
    st->hang_iters[1] = niters > 1 ? (int)i1 : 0;
    st->hang_iters[2] = niters > 2 ? (int)i2 : 0;
    st->hang_iters[3] = niters > 3 ? (int)i3 : 0;
    st->hang_waited_ns = 0;
    __threadfence();
}

// mbarrier.wait's first probe, in the kernel: as a hand-written wait's (spinning up to 64
// probes here before the call made the one-CTA TMA stream 19% slower on an H100).
__device__ __forceinline__ bool mbarrier_wait_parity_fast(unsigned bar, unsigned parity) {
    return mbarrier_try_wait_parity_shared_cta_b64(bar, parity);
}

// What a wait's retry loop and hang report need, in the thread's local memory: the kernel's
// constants, written once after its prologue, and the wait's own site, written only once its
// watchdog expired. With the 18 arguments the untraced wait's call took (the same values), the
// untraced multicast stream ran at 0.85 of the hand-written one's speed on an H100, with 5 at
// 1.00 (`bench executor-overhead --experiments`, TMASIM_WAIT_FEW_ARGS, 2026-11-26): the
// arguments, not the retry loop or its clock, cost it.
struct WaitHangContext {
    unsigned long long watchdog_ns, entry_clock, entry_ns, start_clock;
    WarpTraceHeader* trace_hdr;
    DeviceStatus* status;
    unsigned leader_lane;
    // A traced kernel whose words wait in shared memory: the first word's shared address (else
    // 0) and the warp's region, where a hang copies them.
    unsigned words_shared_first;
    unsigned* tw_region;
    // The wait: its op, loop depth and indices, barrier and element, the word it would end in.
    int op, niters, barrier, barrier_index;
    unsigned hang_word;
    long long iters[4];
};

// mbarrier.wait's retry loop, after a first try_wait probe (in the kernel) failed: probe
// until the phase with `parity` completes or the watchdog expires. It reads only %clock64 (a
// %globaltimer read in the loop delayed the wake-up: an H100 multicast stream ran 15% slower
// than by hand); 2 cycles per ns bound the SM clock, so the wait lasts at least
// `watchdog_ns`, and the ns waited convert by the warp's own clock rate since its entry
// (the context's `entry_clock`, `entry_ns`). A function of its own, called off the kernel's fast path:
// inline, its clock arithmetic made every pipeline loop body too large for the compiler to
// unroll, and its merge with the fast path cost a taken branch and a flag test per wait.
// Returns 0 once the phase completed, else the ns waited (at least 1).
__device__ __noinline__ unsigned long long mbarrier_wait_parity_slow(unsigned bar, unsigned parity,
                                                                     unsigned long long watchdog_ns,
                                                                     const WaitHangContext* c) {
#if defined(TMASIM_WAIT_NO_WATCHDOG)  // the benchmark's experiment: what the watchdog's clock reads cost
    while (!mbarrier_try_wait_parity_shared_cta_b64(bar, parity)) {
    }
    return 0ull;
#elif defined(TMASIM_WAIT_NO_CLOCK_KEEP_ARGS)  // experiment: no clock, the hang path still reachable
    // (the multicast stream: as slow as with the watchdog, where TMASIM_WAIT_NO_WATCHDOG, which
    // lets the compiler drop the hang path and its arguments, runs at the reference's speed)
    while (!mbarrier_try_wait_parity_shared_cta_b64(bar, parity)) {
    }
    return watchdog_ns >> 63;
#endif
    const unsigned long long start = read_clock64();
    const unsigned long long limit = 2ull * watchdog_ns;
    while (!mbarrier_try_wait_parity_shared_cta_b64(bar, parity)) {
        const unsigned long long now = read_clock64();
        if (now - start > limit) {
            const double ns_per_clock = (double)(read_globaltimer() - c->entry_ns) / (double)(now - c->entry_clock);
            const unsigned long long waited = (unsigned long long)((double)(now - start) * ns_per_clock);
            return waited > 0ull ? waited : 1ull;
        }
    }
    return 0ull;
}

// A wait's hang report, once its watchdog expired.
__device__ __noinline__ void report_wait_hang(const WaitHangContext* c, unsigned parity, unsigned long long waited_ns) {
    report_hang(c->status, c->op, (int)blockIdx.x, (int)(threadIdx.x >> 5), (int)(threadIdx.x & 31u), c->niters,
                c->iters[0], c->iters[1], c->iters[2], c->iters[3], c->barrier, c->barrier_index, parity, waited_ns);
}

// A wait after a failed first probe: the retry loop, and on a timeout the hang's trace (a
// traced kernel stored its words before the call), report and the thread's exit, all in this
// call, so the kernel has no branch after it
// (a hang block after the call kept the untraced multicast stream at 0.85 of the hand-written
// speed on an H100, and so did this call with the wait's site packed into three more
// arguments). The kernel writes the wait's site into the context just before the call; the
// watchdog comes as an argument (read from the context, the load delayed every retry loop's
// first probe: the one-CTA round trip ran 3% slower).
__device__ __noinline__ void mbarrier_wait_parity_or_exit(unsigned bar, unsigned parity,
                                                          unsigned long long watchdog_ns, const WaitHangContext* c) {
    const unsigned long long waited_ns = mbarrier_wait_parity_slow(bar, parity, watchdog_ns, c);
    if (waited_ns == 0ull) return;
    trace_hang(c->trace_hdr, c->entry_clock, c->entry_ns, c->start_clock, c->leader_lane, c->hang_word);
    if (c->words_shared_first != 0u) trace_copy_words(c->tw_region, c->words_shared_first, c->hang_word, __activemask());
    report_wait_hang(c, parity, waited_ns);
    thread_exit();
}

// An array index computed at run time must stay inside the array: trap (a `fault` with
// CUDA's message) rather than touch the neighbouring buffer.
__device__ __forceinline__ long long checked_index(long long i, long long count) {
    if (i < 0 || i >= count) __trap();
    return i;
}

// bulk.wait_group with a loop-dependent n: the instruction takes an immediate only.
__device__ __forceinline__ void cp_async_bulk_wait_group_dynamic(long long n, bool read_only) {
    switch (n) {
#define TMASIM_WAIT_CASE(N) case N: \
        if (read_only) cp_async_bulk_wait_group_read<N>(); else cp_async_bulk_wait_group<N>(); break;
    TMASIM_WAIT_CASE(0) TMASIM_WAIT_CASE(1) TMASIM_WAIT_CASE(2) TMASIM_WAIT_CASE(3)
    TMASIM_WAIT_CASE(4) TMASIM_WAIT_CASE(5) TMASIM_WAIT_CASE(6) TMASIM_WAIT_CASE(7)
#undef TMASIM_WAIT_CASE
    default: __trap();
    }
}
)abi";

}  // namespace

std::string kernel_abi_device_source() {
    std::string s = kDeviceAbi;
    // Pin the device layout to the host's. (NVRTC has no offsetof; both sides declare the
    // same members in the same order, so equal sizes catch a member added on one side.)
    s += fmt::format(
        "static_assert(sizeof(WarpTraceHeader) == {}, \"WarpTraceHeader ABI\");\n"
        "static_assert(sizeof(DeviceStatus) == {}, \"DeviceStatus ABI\");\n",
        sizeof(WarpTraceHeader), sizeof(DeviceStatus));
    return s;
}

}  // namespace tmasim::device
