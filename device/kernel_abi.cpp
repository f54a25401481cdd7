#include "device/kernel_abi.h"

#include <fmt/format.h>

namespace tmasim::device {

namespace {

// Device side of the ABI. Trace and hang helpers live here, not in the generated body, so
// each op's code stays a few readable lines.
constexpr const char* kDeviceAbi = R"abi(
struct alignas(64) TensorMapParam { unsigned long long v[16]; };  // a CUtensorMap, by value

struct DeviceRecord {
    unsigned long long clk;
    unsigned dur, meta;  // meta: kind | ended << 3 | lane << 4 | op << 9
};

struct DeviceStatus {
    unsigned trace_unused, trace_dropped;
    int hang_flag, hang_threads, hang_op, hang_cta, hang_warp, hang_lane;
    int hang_barrier, hang_barrier_index, hang_parity, hang_niters;
    int hang_iters[4];
    int hang_kind, pad;
    unsigned long long hang_waited_ns;
};


// Where one warp's records go. Each warp owns a region of `capacity` records in global
// memory and, at trace levels other than none, a ring of `ring_slots` records in shared
// memory that holds the first records of that region. A warp-uniform slot counter, advanced
// by every lane after each op the warp records, means no slot is shared: recording is one
// plain 16-byte store, no atomic, no fence, no %globaltimer read. Records go to shared
// memory while they fit and are copied out once, after the kernel's last barrier
// (copy_trace_rings); records past the ring go straight to global memory, and past the
// region they are counted as dropped, the count added to the status once, at exit.
// What the record costs on an H100 (`tmasim bench executor-overhead --experiments`): with a
// branch per record and the store right after the clock read, the TMA stream at one CTA ran
// 3.2x slower than untraced; the clock reads alone 1.8x. So at level all a record waits in
// registers until the thread's next op has issued (pend), and every store is predicated,
// never a branch: the op's own branch stays the only one, as in the untraced kernel.
// A record holds the begin clock and the low 32 bits of the end clock (the host takes the
// difference modulo 2^32). TMASIM_TRACE_NO_STORE, an experiment, writes no record at all.
struct Tracer {
    DeviceRecord* buf;   // this warp's region in global memory
    unsigned capacity;   // records per warp
    DeviceStatus* status;
    DeviceRecord* ring;  // this warp's ring in shared memory (ring_slots records)
    unsigned ring_slots;
    unsigned* ring_used; // this warp's published slot count, in shared memory
    unsigned next;       // same value in every lane of the warp
    unsigned dropped;
    // The records of this thread's last ops, newest first, stored before the thread's next
    // wait (mbarrier or wait_group: the thread is about to stop anyway, and a store right
    // before a release op such as bar.sync or mbarrier.arrive makes that op wait for it), when
    // a fifth arrives, at a wait's hang, or at exit.
    struct Pending {
        unsigned long long c0;
        unsigned end, meta, slot;
        bool on;
    };
    Pending p0, p1, p2, p3;
    static __device__ __forceinline__ unsigned meta_of(int op, int kind, int ended, int lane) {
        return (unsigned)kind | ((unsigned)ended << 3) | ((unsigned)lane << 4) | ((unsigned)op << 9);
    }
    __device__ __forceinline__ void put(bool on, unsigned slot, unsigned meta, unsigned long long c0,
                                        unsigned end) {
#ifdef TMASIM_TRACE_NO_STORE
        if (on && meta == 0xffffffffu && end == 0u) status->trace_unused = (unsigned)c0;
#else
        const uint4 v = make_uint4((unsigned)c0, (unsigned)(c0 >> 32), end, meta);
#ifdef TMASIM_TRACE_RING_HOLDS_ALL  // the launch made the ring as large as the region
        if (on) *reinterpret_cast<uint4*>(ring + slot) = v;
        return;
#endif
        if (on && slot < ring_slots) *reinterpret_cast<uint4*>(ring + slot) = v;
        if (on && slot >= ring_slots && slot < capacity) *reinterpret_cast<uint4*>(buf + slot) = v;
        dropped += (on && slot >= capacity) ? 1u : 0u;  // bounded region: count, never write past it
#endif
    }
    __device__ __forceinline__ void write(unsigned slot, int op, int kind, int ended, int lane,
                                          unsigned long long c0, unsigned long long c1) {
        put(true, slot, meta_of(op, kind, ended, lane), c0, (unsigned)c1);
    }
    __device__ __forceinline__ void record(int op, int kind, int ended, int lane,
                                           unsigned long long c0, unsigned long long c1) {
        write(next, op, kind, ended, lane, c0, c1);
    }
    // Level all: keep this op's record (`on`: this thread records it); the oldest of five goes
    // out now. TMASIM_TRACE_PEND_ONE, a benchmark experiment, stores the previous one instead.
    __device__ __forceinline__ void pend(bool on, int op, int kind, int lane, unsigned long long c0,
                                         unsigned long long c1) {
#ifdef TMASIM_TRACE_PEND_ONE
        put(p0.on, p0.slot, p0.meta, p0.c0, p0.end);
#else
        put(p3.on, p3.slot, p3.meta, p3.c0, p3.end);
        p3 = p2;
        p2 = p1;
        p1 = p0;
#endif
        p0 = Pending{c0, (unsigned)c1, meta_of(op, kind, 1, lane), next, on};
    }
    __device__ __forceinline__ void flush_pending() {
        put(p3.on, p3.slot, p3.meta, p3.c0, p3.end);
        put(p2.on, p2.slot, p2.meta, p2.c0, p2.end);
        put(p1.on, p1.slot, p1.meta, p1.c0, p1.end);
        put(p0.on, p0.slot, p0.meta, p0.c0, p0.end);
        p0.on = p1.on = p2.on = p3.on = false;
    }
    // An entry or exit record and the timer record after it, in this slot and the next
    // (the caller advances every lane by two).
    __device__ __forceinline__ void record_timer(int kind, unsigned long long clk, unsigned long long ns) {
        write(next, 0, kind, 1, 0, clk, clk);
        write(next + 1u, 0, 4, 1, 0, ns, ns);
    }
    __device__ __forceinline__ void advance() { ++next; }
    // Every lane that finishes (or gives up) says how far its warp got; the largest wins,
    // so a warp whose lane 0 timed out still has its records copied.
    __device__ __forceinline__ void publish() const {
        if (ring_slots != 0u) atomicMax(ring_used, next);
    }
    __device__ __forceinline__ void flush_dropped() const {
        if (dropped != 0u) atomicAdd(&status->trace_dropped, dropped);
    }
    // Threads that leave early (watchdog, unarrived cluster wait) copy their warp's ring
    // themselves: if every thread leaves, no epilogue copies it. The lanes leaving together
    // sync first, so the lowest of them reads the others' records after they were written
    // (racecheck saw each lane read lane 0's records without it).
    __device__ __forceinline__ void leave() {
        flush_pending();
        publish();
        flush_dropped();
        const unsigned leaving = __activemask();
        __syncwarp(leaving);
        if ((int)(threadIdx.x & 31u) != __ffs(leaving) - 1) return;
        const unsigned n = next < ring_slots ? next : ring_slots;
        for (unsigned i = 0; i < n; ++i) buf[i] = ring[i];
    }
};

// After the kernel's last CTA barrier: every thread copies a share of every warp's ring
// (records up to the count its warp published) to the warp's global region.
__device__ __forceinline__ void copy_trace_rings(DeviceRecord* cta_buf, unsigned capacity,
                                                 const DeviceRecord* rings, unsigned ring_slots,
                                                 const unsigned* ring_used, int warps, int tid,
                                                 int block) {
    for (int w = 0; w < warps; ++w) {
        const unsigned n = ring_used[w] < ring_slots ? ring_used[w] : ring_slots;
        const uint4* from = reinterpret_cast<const uint4*>(rings + (unsigned long long)w * ring_slots);
        uint4* to = reinterpret_cast<uint4*>(cta_buf + (unsigned long long)w * capacity);
        for (unsigned i = (unsigned)tid; i < n; i += (unsigned)block) to[i] = from[i];
    }
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

// mbarrier.wait: probe until the phase with `parity` completes or the watchdog expires.
// A first probe that succeeds costs what a hand-written wait costs. After a failed one the
// loop reads only %clock64: a %globaltimer read in the loop delayed the wake-up (an H100
// multicast stream ran 15% slower than by hand). 2 cycles per ns bound the SM clock, so
// the wait lasts at least `watchdog_ns`; `waited_ns` converts by the warp's own clock rate
// since its entry (`entry_clock`, `entry_ns`).
__device__ __forceinline__ bool mbarrier_wait_parity_watchdog(unsigned bar, unsigned parity,
                                                              unsigned long long watchdog_ns,
                                                              unsigned long long& waited_ns,
                                                              unsigned long long entry_clock,
                                                              unsigned long long entry_ns) {
    if (mbarrier_try_wait_parity_shared_cta_b64(bar, parity)) return true;
#if defined(TMASIM_WAIT_NO_WATCHDOG)  // the benchmark's experiment: what the watchdog's clock reads cost
    while (!mbarrier_try_wait_parity_shared_cta_b64(bar, parity)) {
    }
    return true;
#endif
    const unsigned long long start = read_clock64();
    const unsigned long long limit = 2ull * watchdog_ns;
    while (!mbarrier_try_wait_parity_shared_cta_b64(bar, parity)) {
        const unsigned long long now = read_clock64();
        if (now - start > limit) {
            const double ns_per_clock = (double)(read_globaltimer() - entry_ns) / (double)(now - entry_clock);
            waited_ns = (unsigned long long)((double)(now - start) * ns_per_clock);
            return false;
        }
    }
    return true;
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
        "static_assert(sizeof(DeviceRecord) == {}, \"DeviceRecord ABI\");\n"
        "static_assert(sizeof(DeviceStatus) == {}, \"DeviceStatus ABI\");\n",
        sizeof(DeviceRecord), sizeof(DeviceStatus));
    return s;
}

}  // namespace tmasim::device
