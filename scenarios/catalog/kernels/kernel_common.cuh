// Helpers shared by the catalog's kernels (scenarios/catalog/kernels/*.cu): the CUtensorMap
// definition NVRTC lacks, and thin inline-PTX wrappers for the instructions CCCL's cuda::ptx
// does not wrap (elect.sync, LDGSTS, tensor prefetch, mapa, st.async and remote arrives on
// shared::cluster addresses, wgmma, setmaxnreg, ldmatrix/stmatrix). Each wrapper is one
// instruction, so a diagnostic on it names the kernel line that called it.
#pragma once

#include <cuda/barrier>
#include <cuda/ptx>
#include <cuda/std/cstdint>

// <cuda/barrier> declares CUtensorMap (struct CUtensorMap_st) without defining it; under NVRTC
// <cuda.h> is not available, so the catalog completes it with the driver's layout: 128 bytes,
// 64-byte aligned. nvcc's own headers do not define it either unless <cuda.h> is included.
struct CUtensorMap_st {
    alignas(64) unsigned long long opaque[16];
};

namespace ptx = cuda::ptx;
using cuda::std::uint16_t;
using cuda::std::uint32_t;
using cuda::std::uint64_t;

namespace kc {

// The 32-bit shared::cta address of a shared-memory object (what every .shared instruction takes).
__device__ inline uint32_t smem_addr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// One lane of the (converged) warp: elect.sync, which lets the compiler know only one thread
// runs the guarded code (CUDA Programming Guide 4.11.2.1, is_elected).
__device__ inline bool elect_one() {
    uint32_t pred = 0;
    asm volatile(
        "{\n\t.reg .pred P;\n\t"
        "elect.sync _|P, 0xffffffff;\n\t"
        "selp.u32 %0, 1, 0, P;\n\t}"
        : "=r"(pred));
    return pred != 0;
}

// The guide's is_elected(): one thread of warp 0, the warp index made warp-uniform first.
__device__ inline bool is_elected() {
    const unsigned warp = __shfl_sync(0xffffffffu, threadIdx.x / 32, 0);
    return warp == 0 && elect_one();
}

// Spin until the barrier's phase with this parity has completed (acquire, CTA scope).
__device__ inline void wait_parity(uint64_t* bar, uint32_t parity) {
    while (!ptx::mbarrier_try_wait_parity(bar, parity)) {
    }
}

// ---- LDGSTS (cp.async), CUDA Programming Guide 4.11.1 ------------------------------------
// .ca for 4 and 8 bytes (L1 access mode), .cg for 16 (L1 bypass).
__device__ inline void cp_async_4(void* dst, const void* src) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem_addr(dst)), "l"(src) : "memory");
}
__device__ inline void cp_async_8(void* dst, const void* src) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(smem_addr(dst)), "l"(src) : "memory");
}
__device__ inline void cp_async_16(void* dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_addr(dst)), "l"(src) : "memory");
}
__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ inline void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
__device__ inline void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// ---- TMA prefetch into L2 (no shared memory, no barrier) ---------------------------------
__device__ inline void tma_prefetch_2d(const CUtensorMap* map, int x, int y) {
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];" ::"l"(map), "r"(x), "r"(y)
                 : "memory");
}

// ---- Clusters: distributed shared memory -------------------------------------------------
// The shared::cluster address of the object at `local` (a shared::cta address) in CTA `rank`.
__device__ inline uint32_t map_rank(uint32_t local, uint32_t rank) {
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
    return remote;
}
__device__ inline uint32_t cluster_rank() { return ptx::get_sreg_cluster_ctarank(); }
// Arrive (release, cluster scope) on a barrier given by its shared::cluster address.
__device__ inline void arrive_remote(uint32_t remote_bar) {
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote_bar) : "memory");
}
// st.async: 4 bytes into a peer's shared memory, complete_tx on that peer's barrier.
__device__ inline void st_async_b32(uint32_t remote_addr, int value, uint32_t remote_bar) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(remote_addr),
                 "r"(value), "r"(remote_bar)
                 : "memory");
}
__device__ inline int ld_cluster_b32(uint32_t remote_addr) {
    int v;
    asm volatile("ld.shared::cluster.b32 %0, [%1];" : "=r"(v) : "r"(remote_addr) : "memory");
    return v;
}
// barrier.cluster.arrive (release) + barrier.cluster.wait (acquire): cluster.sync().
__device__ inline void cluster_sync() {
    ptx::barrier_cluster_arrive();
    ptx::barrier_cluster_wait();
}

// ---- Warp-collective shared-memory matrix loads and stores (PTX 9.7.14.5.15-16) ----------
// Four 8x8 matrices of 16-bit elements; lane l gives the address of row l%8 of matrix l/8 and
// receives element pairs (row l/4, columns 2*(l%4), +1) of each matrix in r[0..3].
__device__ inline void ldmatrix_x4(uint32_t (&r)[4], uint32_t row_addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(row_addr)
                 : "memory");
}
__device__ inline void stmatrix_x4_trans(const uint32_t (&r)[4], uint32_t row_addr) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(row_addr), "r"(r[0]),
                 "r"(r[1]), "r"(r[2]), "r"(r[3])
                 : "memory");
}

}  // namespace kc
