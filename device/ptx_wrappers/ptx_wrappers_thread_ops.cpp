// PTX wrappers for the per-thread ops (volatile shared/global accesses by width, plain global
// stores, cp.async and its groups) and the L2 prefetches through the TMA unit. Same
// conventions as ptx_wrappers.cpp, which appends this text to its own.
#include "device/ptx_wrappers/ptx_wrappers.h"

namespace tmasim::device {

namespace {

// Sub-word accesses (b8, b16) move a 32-bit register: PTX lets ld/st name a register wider
// than the instruction type (zero-extended by a load, truncated by a store), and the kernel
// then handles every width with one register type.
constexpr std::string_view kThreadOpSource = R"ptx(
// ---- volatile shared accesses by width, for the per-thread shared.load and shared.store ----
// .volatile: ptxas keeps every one of them, also in loops with a loop-invariant address.

// PTX: ld.volatile.shared.b8 d, [addr];  sm_20
__device__ __forceinline__ unsigned ld_volatile_shared_b8(unsigned addr) {
    unsigned v;
    asm volatile("ld.volatile.shared.b8 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

// PTX: ld.volatile.shared.b16 d, [addr];  sm_20
__device__ __forceinline__ unsigned ld_volatile_shared_b16(unsigned addr) {
    unsigned v;
    asm volatile("ld.volatile.shared.b16 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

// PTX: ld.volatile.shared.b32 d, [addr];  sm_20
__device__ __forceinline__ unsigned ld_volatile_shared_b32(unsigned addr) {
    unsigned v;
    asm volatile("ld.volatile.shared.b32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

// PTX: ld.volatile.shared.v2.b32 {d0, d1}, [addr];  sm_20 (8-byte aligned)
__device__ __forceinline__ void ld_volatile_shared_v2_b32(unsigned addr, unsigned& d0,
                                                          unsigned& d1) {
    asm volatile("ld.volatile.shared.v2.b32 {%0, %1}, [%2];"
                 : "=r"(d0), "=r"(d1) : "r"(addr) : "memory");
}

// PTX: ld.volatile.shared.v4.b32 {d0, d1, d2, d3}, [addr];  sm_20 (16-byte aligned)
__device__ __forceinline__ void ld_volatile_shared_v4_b32(unsigned addr, unsigned& d0,
                                                          unsigned& d1, unsigned& d2,
                                                          unsigned& d3) {
    asm volatile("ld.volatile.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(addr) : "memory");
}

// PTX: st.volatile.shared.b8 [addr], v;  sm_20 (the low 8 bits of v)
__device__ __forceinline__ void st_volatile_shared_b8(unsigned addr, unsigned v) {
    asm volatile("st.volatile.shared.b8 [%0], %1;" :: "r"(addr), "r"(v) : "memory");
}

// PTX: st.volatile.shared.b16 [addr], v;  sm_20 (the low 16 bits of v)
__device__ __forceinline__ void st_volatile_shared_b16(unsigned addr, unsigned v) {
    asm volatile("st.volatile.shared.b16 [%0], %1;" :: "r"(addr), "r"(v) : "memory");
}

// PTX: st.volatile.shared.b32 [addr], v;  sm_20
__device__ __forceinline__ void st_volatile_shared_b32(unsigned addr, unsigned v) {
    asm volatile("st.volatile.shared.b32 [%0], %1;" :: "r"(addr), "r"(v) : "memory");
}

// PTX: st.volatile.shared.v2.b32 [addr], {v0, v1};  sm_20 (8-byte aligned)
__device__ __forceinline__ void st_volatile_shared_v2_b32(unsigned addr, unsigned v0,
                                                          unsigned v1) {
    asm volatile("st.volatile.shared.v2.b32 [%0], {%1, %2};"
                 :: "r"(addr), "r"(v0), "r"(v1) : "memory");
}

// PTX: st.volatile.shared.v4.b32 [addr], {v0, v1, v2, v3};  sm_20 (16-byte aligned)
__device__ __forceinline__ void st_volatile_shared_v4_b32(unsigned addr, unsigned v0,
                                                          unsigned v1, unsigned v2,
                                                          unsigned v3) {
    asm volatile("st.volatile.shared.v4.b32 [%0], {%1, %2, %3, %4};"
                 :: "r"(addr), "r"(v0), "r"(v1), "r"(v2), "r"(v3) : "memory");
}

// ---- volatile global loads by width, for the per-thread global.load -----------------------

// PTX: ld.volatile.global.b8 d, [addr];  sm_20
__device__ __forceinline__ unsigned ld_volatile_global_b8(const void* addr) {
    unsigned v;
    asm volatile("ld.volatile.global.b8 %0, [%1];" : "=r"(v) : "l"(addr) : "memory");
    return v;
}

// PTX: ld.volatile.global.b16 d, [addr];  sm_20
__device__ __forceinline__ unsigned ld_volatile_global_b16(const void* addr) {
    unsigned v;
    asm volatile("ld.volatile.global.b16 %0, [%1];" : "=r"(v) : "l"(addr) : "memory");
    return v;
}

// PTX: ld.volatile.global.b32 d, [addr];  sm_20
__device__ __forceinline__ unsigned ld_volatile_global_b32(const void* addr) {
    unsigned v;
    asm volatile("ld.volatile.global.b32 %0, [%1];" : "=r"(v) : "l"(addr) : "memory");
    return v;
}

// PTX: ld.volatile.global.v2.b32 {d0, d1}, [addr];  sm_20 (8-byte aligned)
__device__ __forceinline__ void ld_volatile_global_v2_b32(const void* addr, unsigned& d0,
                                                          unsigned& d1) {
    asm volatile("ld.volatile.global.v2.b32 {%0, %1}, [%2];"
                 : "=r"(d0), "=r"(d1) : "l"(addr) : "memory");
}

// PTX: ld.volatile.global.v4.b32 {d0, d1, d2, d3}, [addr];  sm_20 (16-byte aligned)
__device__ __forceinline__ void ld_volatile_global_v4_b32(const void* addr, unsigned& d0,
                                                          unsigned& d1, unsigned& d2,
                                                          unsigned& d3) {
    asm volatile("ld.volatile.global.v4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "l"(addr) : "memory");
}

// ---- plain global stores, for the per-thread global.store ----

// PTX: st.global.{b8, b16, b32, v2.b32, v4.b32} [addr], v;  sm_20 (N bytes, v in every 32-bit word)
template <int N>
__device__ __forceinline__ void st_global(unsigned char* addr, unsigned v) {
    if constexpr (N == 1) {
        asm volatile("st.global.b8 [%0], %1;" :: "l"(addr), "r"(v) : "memory");
    } else if constexpr (N == 2) {
        asm volatile("st.global.b16 [%0], %1;" :: "l"(addr), "r"(v) : "memory");
    } else if constexpr (N == 4) {
        asm volatile("st.global.b32 [%0], %1;" :: "l"(addr), "r"(v) : "memory");
    } else if constexpr (N == 8) {
        asm volatile("st.global.v2.b32 [%0], {%1, %2};" :: "l"(addr), "r"(v), "r"(v) : "memory");
    } else {
        static_assert(N == 16, "st.global moves 1, 2, 4, 8 or 16 bytes");
        asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};"
                     :: "l"(addr), "r"(v), "r"(v), "r"(v), "r"(v) : "memory");
    }
}

// PTX: xor.b32 d, a, b;  sm_20 (d = sink: folds a loaded value into the thread's sink)
// asm volatile with "memory" keeps the fold between the load and the clock read that ends
// the op, so that read waits for the loaded data: a warp issues in order and the xor
// waits on the loaded register. The value also has a use, so the load is never dead.
__device__ __forceinline__ void xor_b32_sink(unsigned& sink, unsigned v) {
    asm volatile("xor.b32 %0, %0, %1;" : "+r"(sink) : "r"(v) : "memory");
}

// ---- cp.async (LDGSTS): per-thread asynchronous global -> shared copies -----------------
// cp-size is an immediate (4, 8 or 16), hence the template; src-size < cp-size zero-fills
// the rest of the destination.

// PTX: cp.async.ca.shared.global [dst], [src], cp-size;  sm_80 (cached in L1 and L2)
template <int N>
__device__ __forceinline__ void cp_async_ca_shared_global(unsigned dst, const void* src) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;"
                 :: "r"(dst), "l"(src), "n"(N) : "memory");
}

// PTX: cp.async.ca.shared.global [dst], [src], cp-size, src-size;  sm_80
template <int N>
__device__ __forceinline__ void cp_async_ca_shared_global(unsigned dst, const void* src,
                                                          unsigned src_size) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;"
                 :: "r"(dst), "l"(src), "n"(N), "r"(src_size) : "memory");
}

// PTX: cp.async.cg.shared.global [dst], [src], 16;  sm_80 (cached in L2 only; cp-size 16)
template <int N>
__device__ __forceinline__ void cp_async_cg_shared_global(unsigned dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], %2;"
                 :: "r"(dst), "l"(src), "n"(N) : "memory");
}

// PTX: cp.async.cg.shared.global [dst], [src], 16, src-size;  sm_80
template <int N>
__device__ __forceinline__ void cp_async_cg_shared_global(unsigned dst, const void* src,
                                                          unsigned src_size) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], %2, %3;"
                 :: "r"(dst), "l"(src), "n"(N), "r"(src_size) : "memory");
}

// PTX: cp.async.commit_group;  sm_80
__device__ __forceinline__ void cp_async_commit_group() {
    asm volatile("cp.async.commit_group;" ::: "memory");
}

// PTX: cp.async.wait_group N;  sm_80 (N must be an immediate, hence the template)
template <int N>
__device__ __forceinline__ void cp_async_wait_group() {
    asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory");
}

// PTX: cp.async.wait_all;  sm_80
__device__ __forceinline__ void cp_async_wait_all() {
    asm volatile("cp.async.wait_all;" ::: "memory");
}

// PTX: cp.async.mbarrier.arrive.shared::cta.b64 [addr];  sm_80
// Arrives on the mbarrier once this thread's earlier cp.async copies are done; the pending
// count is incremented first, so the arrival does not count against the init count.
__device__ __forceinline__ void cp_async_mbarrier_arrive_shared_cta_b64(unsigned addr) {
    asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];" :: "r"(addr) : "memory");
}

// PTX: cp.async.mbarrier.arrive.noinc.shared::cta.b64 [addr];  sm_80
// As above without the increment: the arrival counts as one of the init count's.
__device__ __forceinline__ void cp_async_mbarrier_arrive_noinc_shared_cta_b64(unsigned addr) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" :: "r"(addr) : "memory");
}

// ---- L2 prefetches through the TMA unit (coordinates fastest-first) ----------------------

// PTX: cp.async.bulk.prefetch.tensor.1d.L2.global.tile [tensorMap, {c0}];  sm_90
__device__ __forceinline__ void cp_async_bulk_prefetch_tensor_1d_l2_global_tile(
    const void* tmap, int c0) {
    asm volatile("cp.async.bulk.prefetch.tensor.1d.L2.global.tile [%0, {%1}];"
                 :: "l"(tmap), "r"(c0) : "memory");
}

// PTX: cp.async.bulk.prefetch.tensor.2d.L2.global.tile [tensorMap, {c0, c1}];  sm_90
__device__ __forceinline__ void cp_async_bulk_prefetch_tensor_2d_l2_global_tile(
    const void* tmap, int c0, int c1) {
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];"
                 :: "l"(tmap), "r"(c0), "r"(c1) : "memory");
}

// PTX: cp.async.bulk.prefetch.tensor.3d.L2.global.tile [tensorMap, {c0, c1, c2}];  sm_90
__device__ __forceinline__ void cp_async_bulk_prefetch_tensor_3d_l2_global_tile(
    const void* tmap, int c0, int c1, int c2) {
    asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];"
                 :: "l"(tmap), "r"(c0), "r"(c1), "r"(c2) : "memory");
}

// PTX: cp.async.bulk.prefetch.tensor.4d.L2.global.tile [tensorMap, {c0, c1, c2, c3}];  sm_90
__device__ __forceinline__ void cp_async_bulk_prefetch_tensor_4d_l2_global_tile(
    const void* tmap, int c0, int c1, int c2, int c3) {
    asm volatile("cp.async.bulk.prefetch.tensor.4d.L2.global.tile [%0, {%1, %2, %3, %4}];"
                 :: "l"(tmap), "r"(c0), "r"(c1), "r"(c2), "r"(c3) : "memory");
}

// PTX: cp.async.bulk.prefetch.tensor.5d.L2.global.tile [tensorMap, {c0, c1, c2, c3, c4}];  sm_90
__device__ __forceinline__ void cp_async_bulk_prefetch_tensor_5d_l2_global_tile(
    const void* tmap, int c0, int c1, int c2, int c3, int c4) {
    asm volatile("cp.async.bulk.prefetch.tensor.5d.L2.global.tile [%0, {%1, %2, %3, %4, %5}];"
                 :: "l"(tmap), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4) : "memory");
}

// PTX: cp.async.bulk.prefetch.L2.global [srcMem], size;  sm_90 (16-byte aligned, size % 16 == 0)
__device__ __forceinline__ void cp_async_bulk_prefetch_l2_global(const void* src,
                                                                 unsigned bytes) {
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;"
                 :: "l"(src), "r"(bytes) : "memory");
}
)ptx";

}  // namespace

std::string_view ptx_thread_op_wrappers_source() { return kThreadOpSource; }

std::vector<std::string> ptx_thread_op_wrapper_names() {
    return {
        "ld_volatile_shared_b8",
        "ld_volatile_shared_b16",
        "ld_volatile_shared_b32",
        "ld_volatile_shared_v2_b32",
        "ld_volatile_shared_v4_b32",
        "st_volatile_shared_b8",
        "st_volatile_shared_b16",
        "st_volatile_shared_b32",
        "st_volatile_shared_v2_b32",
        "st_volatile_shared_v4_b32",
        "ld_volatile_global_b8",
        "ld_volatile_global_b16",
        "ld_volatile_global_b32",
        "ld_volatile_global_v2_b32",
        "ld_volatile_global_v4_b32",
        "st_global",
        "xor_b32_sink",
        "cp_async_ca_shared_global",
        "cp_async_cg_shared_global",
        "cp_async_commit_group",
        "cp_async_wait_group",
        "cp_async_wait_all",
        "cp_async_mbarrier_arrive_shared_cta_b64",
        "cp_async_mbarrier_arrive_noinc_shared_cta_b64",
        "cp_async_bulk_prefetch_tensor_1d_l2_global_tile",
        "cp_async_bulk_prefetch_tensor_2d_l2_global_tile",
        "cp_async_bulk_prefetch_tensor_3d_l2_global_tile",
        "cp_async_bulk_prefetch_tensor_4d_l2_global_tile",
        "cp_async_bulk_prefetch_tensor_5d_l2_global_tile",
        "cp_async_bulk_prefetch_l2_global",
    };
}

}  // namespace tmasim::device
