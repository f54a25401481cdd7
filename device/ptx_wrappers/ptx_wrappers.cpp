#include "device/ptx_wrappers/ptx_wrappers.h"

#include <string>

namespace tmasim::device {

namespace {

// Conventions for the text below:
// - shared-memory operands are 32-bit shared::cta addresses ("r"), the form the async
//   instructions take; global and tensor-map operands are 64-bit generic addresses ("l").
// - every async, barrier or fence instruction is `asm volatile` with a "memory" clobber, so
//   neither NVRTC nor ptxas moves plain loads/stores (compute ops) across it.
// - tensor coordinates are fastest-moving first (c0 = innermost), as PTX wants them.
constexpr std::string_view kSource = R"ptx(
// ---- addresses and timers ----------------------------------------------------------

// PTX: cvta.to.shared.u64 d, a;  sm_20 (generic -> shared window, then the low 32 bits)
__device__ __forceinline__ unsigned cvta_to_shared_u32(const void* generic) {
    unsigned long long s;
    asm volatile("cvta.to.shared.u64 %0, %1;" : "=l"(s) : "l"(generic));
    return (unsigned)s;
}

// PTX: mov.u64 d, %clock64;  sm_20 (SM cycles; "memory" pins it between the ops it times)
__device__ __forceinline__ unsigned long long read_clock64() {
    unsigned long long c;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c) :: "memory");
    return c;
}

// PTX: exit;  sm_20 (a thread that stops at a hang, from inside a function)
__device__ __forceinline__ void thread_exit() {
    asm volatile("exit;" ::: "memory");
}

// PTX: setp.eq.u32 p, v, K; @p mov.u64 d, %clock64; @!p mov.u64 d, %clock64;  sm_20
// The clock read that ends a load: both arms read the clock, but each is predicated on a
// test of the loaded value, so the read cannot issue before the data arrived. A plain read
// after the load issued early in about half the cases on an H200 (shared.load taking 2-3
// cycles next to 26 + 2 per extra wavefront; traces/recorded/NVIDIA-H200/bank/).
__device__ __forceinline__ unsigned long long read_clock64_after(unsigned loaded) {
    unsigned long long c;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.eq.u32 p, %1, 0x9e3779b9;\n\t"
                 "@p mov.u64 %0, %%clock64;\n\t@!p mov.u64 %0, %%clock64;\n\t}"
                 : "=l"(c) : "r"(loaded) : "memory");
    return c;
}

// PTX: mov.u64 d, %globaltimer;  sm_30 (ns; advances in 32 ns steps on Hopper)
__device__ __forceinline__ unsigned long long read_globaltimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) :: "memory");
    return t;
}

// ---- thread selection and CTA barrier ----------------------------------------------

// PTX: elect.sync d|p, membermask;  sm_90
// Returns whether this thread is the leader; `leader_lane` receives the leader's lane.
__device__ __forceinline__ bool elect_sync(unsigned membermask, unsigned& leader_lane) {
    unsigned lane, is_leader;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "elect.sync %0|p, %2;\n\t"
                 "selp.u32 %1, 1, 0, p;\n\t}"
                 : "=r"(lane), "=r"(is_leader) : "r"(membermask) : "memory");
    leader_lane = lane;
    return is_leader != 0;
}

// PTX: barrier.sync.aligned 0;  sm_70 (bar.sync 0, what __syncthreads() emits)
// The `sync` op; when it is timed, the writer holds the clock read after it (see emit_op).
__device__ __forceinline__ void barrier_sync_aligned_0() {
    asm volatile("barrier.sync.aligned 0;" ::: "memory");
}

// PTX: barrier.sync a, b;  sm_70 (named barrier a, b threads: the `bar.sync` op)
// Not .aligned: the warps of a warp-specialised kernel reach it from different branches.
__device__ __forceinline__ void barrier_sync(unsigned id, unsigned count) {
    asm volatile("barrier.sync %0, %1;" :: "r"(id), "r"(count) : "memory");
}

// PTX: barrier.arrive a, b;  sm_70 (the `bar.arrive` op: arrives without waiting)
__device__ __forceinline__ void barrier_arrive(unsigned id, unsigned count) {
    asm volatile("barrier.arrive %0, %1;" :: "r"(id), "r"(count) : "memory");
}

// ---- mbarrier -----------------------------------------------------------------------

// PTX: mbarrier.init.shared::cta.b64 [addr], count;  sm_80
__device__ __forceinline__ void mbarrier_init_shared_cta_b64(unsigned addr, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(addr), "r"(count) : "memory");
}

// PTX: mbarrier.inval.shared::cta.b64 [addr];  sm_80
__device__ __forceinline__ void mbarrier_inval_shared_cta_b64(unsigned addr) {
    asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(addr) : "memory");
}

// PTX: fence.mbarrier_init.release.cluster;  sm_90
__device__ __forceinline__ void fence_mbarrier_init_release_cluster() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// PTX: mbarrier.arrive.shared::cta.b64 state, [addr];  sm_80
__device__ __forceinline__ unsigned long long mbarrier_arrive_shared_cta_b64(unsigned addr) {
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
                 : "=l"(state) : "r"(addr) : "memory");
    return state;
}

// PTX: mbarrier.arrive.shared::cta.b64 state, [addr], count;  sm_90
__device__ __forceinline__ unsigned long long mbarrier_arrive_shared_cta_b64(unsigned addr,
                                                                             unsigned count) {
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1], %2;"
                 : "=l"(state) : "r"(addr), "r"(count) : "memory");
    return state;
}

// PTX: mbarrier.arrive.expect_tx.shared::cta.b64 state, [addr], txCount;  sm_90
__device__ __forceinline__ unsigned long long mbarrier_arrive_expect_tx_shared_cta_b64(
    unsigned addr, unsigned tx_bytes) {
    unsigned long long state;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;"
                 : "=l"(state) : "r"(addr), "r"(tx_bytes) : "memory");
    return state;
}

// PTX: mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [addr], txCount;  sm_90
__device__ __forceinline__ void mbarrier_expect_tx_relaxed_cta_shared_cta_b64(unsigned addr,
                                                                              unsigned tx_bytes) {
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;"
                 :: "r"(addr), "r"(tx_bytes) : "memory");
}

// PTX: mbarrier.try_wait.parity.shared::cta.b64 waitComplete, [addr], phaseParity;  sm_90
// One bounded probe (the hardware may suspend the thread for a while); callers loop.
__device__ __forceinline__ bool mbarrier_try_wait_parity_shared_cta_b64(unsigned addr,
                                                                        unsigned parity) {
    unsigned done;
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done) : "r"(addr), "r"(parity) : "memory");
    return done != 0;
}

// ---- proxy fence --------------------------------------------------------------------

// PTX: fence.proxy.async.shared::cta;  sm_90
__device__ __forceinline__ void fence_proxy_async_shared_cta() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// ---- TMA: tensor copies (coordinates fastest-first) ------------------------------------

// PTX: cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dstMem], [tensorMap, {c0}], [mbar];  sm_90
__device__ __forceinline__ void cp_async_bulk_tensor_1d_shared_cluster_global_tile_mbarrier(
    unsigned dst, const void* tmap, int c0, unsigned mbar) {
    asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2}], [%3];"
                 :: "r"(dst), "l"(tmap), "r"(c0), "r"(mbar) : "memory");
}

// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dstMem], [tensorMap, {c0, c1}], [mbar];  sm_90
__device__ __forceinline__ void cp_async_bulk_tensor_2d_shared_cluster_global_tile_mbarrier(
    unsigned dst, const void* tmap, int c0, int c1, unsigned mbar) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(dst), "l"(tmap), "r"(c0), "r"(c1), "r"(mbar) : "memory");
}

// PTX: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dstMem], [tensorMap, {c0, c1, c2}], [mbar];  sm_90
__device__ __forceinline__ void cp_async_bulk_tensor_3d_shared_cluster_global_tile_mbarrier(
    unsigned dst, const void* tmap, int c0, int c1, int c2, unsigned mbar) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4}], [%5];"
                 :: "r"(dst), "l"(tmap), "r"(c0), "r"(c1), "r"(c2), "r"(mbar) : "memory");
}

// PTX: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dstMem], [tensorMap, {c0, c1, c2, c3}], [mbar];  sm_90
__device__ __forceinline__ void cp_async_bulk_tensor_4d_shared_cluster_global_tile_mbarrier(
    unsigned dst, const void* tmap, int c0, int c1, int c2, int c3, unsigned mbar) {
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5}], [%6];"
                 :: "r"(dst), "l"(tmap), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(mbar)
                 : "memory");
}

// PTX: cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dstMem], [tensorMap, {c0, c1, c2, c3, c4}], [mbar];  sm_90
__device__ __forceinline__ void cp_async_bulk_tensor_5d_shared_cluster_global_tile_mbarrier(
    unsigned dst, const void* tmap, int c0, int c1, int c2, int c3, int c4, unsigned mbar) {
    asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5, %6}], [%7];"
                 :: "r"(dst), "l"(tmap), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4), "r"(mbar)
                 : "memory");
}

// PTX: cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [tensorMap, {c0}], [srcMem];  sm_90
__device__ __forceinline__ void cp_async_bulk_tensor_1d_global_shared_cta_tile_bulk_group(
    const void* tmap, int c0, unsigned src) {
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%0, {%1}], [%2];"
                 :: "l"(tmap), "r"(c0), "r"(src) : "memory");
}

// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [tensorMap, {c0, c1}], [srcMem];  sm_90
__device__ __forceinline__ void cp_async_bulk_tensor_2d_global_shared_cta_tile_bulk_group(
    const void* tmap, int c0, int c1, unsigned src) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"
                 " [%0, {%1, %2}], [%3];"
                 :: "l"(tmap), "r"(c0), "r"(c1), "r"(src) : "memory");
}

// PTX: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [tensorMap, {c0, c1, c2}], [srcMem];  sm_90
__device__ __forceinline__ void cp_async_bulk_tensor_3d_global_shared_cta_tile_bulk_group(
    const void* tmap, int c0, int c1, int c2, unsigned src) {
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group"
                 " [%0, {%1, %2, %3}], [%4];"
                 :: "l"(tmap), "r"(c0), "r"(c1), "r"(c2), "r"(src) : "memory");
}

// PTX: cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [tensorMap, {c0, c1, c2, c3}], [srcMem];  sm_90
__device__ __forceinline__ void cp_async_bulk_tensor_4d_global_shared_cta_tile_bulk_group(
    const void* tmap, int c0, int c1, int c2, int c3, unsigned src) {
    asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group"
                 " [%0, {%1, %2, %3, %4}], [%5];"
                 :: "l"(tmap), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(src) : "memory");
}

// PTX: cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [tensorMap, {c0, c1, c2, c3, c4}], [srcMem];  sm_90
__device__ __forceinline__ void cp_async_bulk_tensor_5d_global_shared_cta_tile_bulk_group(
    const void* tmap, int c0, int c1, int c2, int c3, int c4, unsigned src) {
    asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group"
                 " [%0, {%1, %2, %3, %4, %5}], [%6];"
                 :: "l"(tmap), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4), "r"(src)
                 : "memory");
}

// ---- TMA: non-tensor bulk copies (16-byte aligned addresses, size a multiple of 16) -----

// PTX: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dstMem], [srcMem], size, [mbar];  sm_90
__device__ __forceinline__ void cp_async_bulk_shared_cluster_global_mbarrier(
    unsigned dst, const void* src, unsigned bytes, unsigned mbar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1], %2, [%3];"
                 :: "r"(dst), "l"(src), "r"(bytes), "r"(mbar) : "memory");
}

// PTX: cp.async.bulk.global.shared::cta.bulk_group [dstMem], [srcMem], size;  sm_90
__device__ __forceinline__ void cp_async_bulk_global_shared_cta_bulk_group(
    void* dst, unsigned src, unsigned bytes) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                 :: "l"(dst), "r"(src), "r"(bytes) : "memory");
}

// PTX: cp.async.bulk.commit_group;  sm_90
__device__ __forceinline__ void cp_async_bulk_commit_group() {
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// PTX: cp.async.bulk.wait_group N;  sm_90 (N must be an immediate, hence the template)
template <int N>
__device__ __forceinline__ void cp_async_bulk_wait_group() {
    asm volatile("cp.async.bulk.wait_group %0;" :: "n"(N) : "memory");
}

// PTX: cp.async.bulk.wait_group.read N;  sm_90 (N must be an immediate, hence the template)
template <int N>
__device__ __forceinline__ void cp_async_bulk_wait_group_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(N) : "memory");
}

// ---- volatile shared accesses (kept in loops by ptxas; plain ld.shared may be hoisted) ----

// PTX: ld.volatile.shared.u32 d, [addr];  sm_20
__device__ __forceinline__ unsigned ld_volatile_shared_u32(unsigned addr) {
    unsigned v;
    asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

// PTX: st.volatile.shared.u32 [addr], v;  sm_20
__device__ __forceinline__ void st_volatile_shared_u32(unsigned addr, unsigned v) {
    asm volatile("st.volatile.shared.u32 [%0], %1;" :: "r"(addr), "r"(v) : "memory");
}

// The trace's clock words (kernel_abi.cpp). "memory" keeps each store where the writer put
// it: after a barrier it holds the next clock read until the barrier released.
// TMASIM_TRACE_NO_STORE, the benchmark's experiment, times the clock reads without them.
// PTX: st.shared.u32 [addr], v;  sm_20
__device__ __forceinline__ void st_shared_u32(unsigned addr, unsigned v) {
#if defined(TMASIM_TRACE_NO_STORE)
    (void)addr;
    (void)v;
#else
    asm volatile("st.shared.u32 [%0], %1;" :: "r"(addr), "r"(v) : "memory");
#endif
}

// PTX: st.global.u32 [addr], v;  sm_20
__device__ __forceinline__ void st_global_u32(unsigned* addr, unsigned v) {
#if defined(TMASIM_TRACE_NO_STORE)
    (void)addr;
    (void)v;
#else
    asm volatile("st.global.u32 [%0], %1;" :: "l"(addr), "r"(v) : "memory");
#endif
}

// PTX: selp.b32 d, a, b, p;  sm_20 (p: c != 0). A lane picks its clock word from registers
// every lane holds alike: a chain of C++ `?:` on the lane index compiled to a divergent branch
// tree, ~1000 cycles per 16-word store of the trace words on an H200; selp stays branch-free.
__device__ __forceinline__ unsigned selp_b32(unsigned a, unsigned b, bool c) {
    unsigned d;
    asm("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %3, 0;\n\tselp.b32 %0, %1, %2, p;\n\t}"
        : "=r"(d) : "r"(a), "r"(b), "r"((unsigned)c));
    return d;
}

// PTX: ld.shared.v4.u32 {a, b, c, d}, [addr];  sm_20 (a warp copying its words out)
__device__ __forceinline__ uint4 ld_shared_v4_u32(unsigned addr) {
    uint4 v;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(addr) : "memory");
    return v;
}

// PTX: ld.volatile.global.s32 d, [addr];  sm_20 (reads the status word other CTAs write)
__device__ __forceinline__ int ld_volatile_global_s32(const int* addr) {
    int v;
    asm volatile("ld.volatile.global.s32 %0, [%1];" : "=r"(v) : "l"(addr) : "memory");
    return v;
}
)ptx";

}  // namespace

std::string_view ptx_wrappers_source() {
    static const std::string whole = std::string(kSource) +
                                     std::string(ptx_thread_op_wrappers_source()) +
                                     std::string(ptx_layout_wrappers_source()) +
                                     std::string(ptx_reduce_and_gather_wrappers_source()) +
                                     std::string(ptx_cluster_wrappers_source()) +
                                     std::string(ptx_guarded_wrappers_source()) +
                                     std::string(ptx_tensormap_wrappers_source()) +
                                     std::string(ptx_wgmma_wrappers_source());
    return whole;
}

const char* const kPtxWrapperNames[] = {
    "cvta_to_shared_u32",
    "read_clock64",
    "thread_exit",
    "read_clock64_after",
    "read_globaltimer",
    "elect_sync",
    "barrier_sync_aligned_0",
    "barrier_sync",
    "barrier_arrive",
    "mbarrier_init_shared_cta_b64",
    "mbarrier_inval_shared_cta_b64",
    "fence_mbarrier_init_release_cluster",
    "mbarrier_arrive_shared_cta_b64",
    "mbarrier_arrive_expect_tx_shared_cta_b64",
    "mbarrier_expect_tx_relaxed_cta_shared_cta_b64",
    "mbarrier_try_wait_parity_shared_cta_b64",
    "fence_proxy_async_shared_cta",
    "cp_async_bulk_tensor_1d_shared_cluster_global_tile_mbarrier",
    "cp_async_bulk_tensor_2d_shared_cluster_global_tile_mbarrier",
    "cp_async_bulk_tensor_3d_shared_cluster_global_tile_mbarrier",
    "cp_async_bulk_tensor_4d_shared_cluster_global_tile_mbarrier",
    "cp_async_bulk_tensor_5d_shared_cluster_global_tile_mbarrier",
    "cp_async_bulk_tensor_1d_global_shared_cta_tile_bulk_group",
    "cp_async_bulk_tensor_2d_global_shared_cta_tile_bulk_group",
    "cp_async_bulk_tensor_3d_global_shared_cta_tile_bulk_group",
    "cp_async_bulk_tensor_4d_global_shared_cta_tile_bulk_group",
    "cp_async_bulk_tensor_5d_global_shared_cta_tile_bulk_group",
    "cp_async_bulk_shared_cluster_global_mbarrier",
    "cp_async_bulk_global_shared_cta_bulk_group",
    "cp_async_bulk_commit_group",
    "cp_async_bulk_wait_group",
    "cp_async_bulk_wait_group_read",
    "ld_volatile_shared_u32",
    "st_volatile_shared_u32",
    "st_shared_u32",
    "st_global_u32",
    "selp_b32",
    "ld_shared_v4_u32",
    "ld_volatile_global_s32",
};
const int kPtxWrapperCount = sizeof(kPtxWrapperNames) / sizeof(kPtxWrapperNames[0]);

std::string wrapper_name_of(const std::string& instruction) {
    std::string name;
    for (size_t i = 0; i < instruction.size(); ++i) {
        if (instruction.compare(i, 2, "::") == 0) {
            name += '_';
            ++i;
        } else {
            name += instruction[i] == '.' ? '_' : instruction[i];
        }
    }
    return name;
}

}  // namespace tmasim::device
