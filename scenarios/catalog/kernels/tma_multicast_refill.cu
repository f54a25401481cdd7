// A multicast buffer used twice: a cluster of 2 CTAs, rank 0 multicasts a 16 x 32 int tile into
// `tile` of both CTAs (each counts the bytes on its own barrier), every thread reads its CTA's
// copy and writes tile + 1000 * rank to out, and rank 0 then multicasts the next tile into the
// same bytes. Between the rounds the cluster barrier orders every CTA's reads before rank 0's
// second issue, but it orders generic accesses only: the second multicast is an async-proxy
// write of bytes the threads read, so each reader fences (fence.proxy.async, which covers its own
// CTA's shared memory) after its reads and before the cluster barrier (docs/semantics.md B12,
// write after read, across the cluster; the multicast reuse DeepEP PR 642 fixed).
// From: PTX ISA 9.7.9.25.4.1 (.multicast::cluster), 9.7.13.4 (fence.proxy.async), 9.7.13.3
// (barrier.cluster); the cluster set-up of tma_multicast.cu.
// Twin multicast_refill_no_fence (-DSKIP_READ_FENCE): the readers' fence left out.
#include "kernel_common.cuh"

constexpr int kClusterSize = 2;
constexpr int kRounds = 2;
constexpr int kTileRows = 16, kTileCols = 32;
constexpr int kTileInts = kTileRows * kTileCols;

// in: [kRounds * 16, 32] ints, tile r for round r; out: [kRounds * 2 * 16, 32], round r's tile of
// rank k at tile index r * 2 + k.
extern "C" __global__ void __launch_bounds__(64) tma_multicast_refill(const __grid_constant__ CUtensorMap in_map, int* out) {
    __shared__ alignas(128) int tile[kTileInts];
    __shared__ uint64_t full;
    const uint32_t rank = kc::cluster_rank();
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&full, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);  // the init, visible to rank 0
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full, kTileInts * 4);
    }
    kc::cluster_sync();  // both inits (and expects) before the first multicast
    for (int round = 0; round < kRounds; ++round) {
        if (rank == 0 && threadIdx.x == 0) {
            const int32_t coords[2] = {0, round * kTileRows};
            const uint16_t mask = (1u << kClusterSize) - 1;
            ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, &in_map, coords, &full, mask);
        }
        kc::wait_parity(&full, static_cast<uint32_t>(round & 1));
        int* dst = out + (round * kClusterSize + static_cast<int>(rank)) * kTileInts;
        for (int i = threadIdx.x; i < kTileInts; i += blockDim.x) dst[i] = tile[i] + 1000 * static_cast<int>(rank);
        if (round + 1 == kRounds) break;
#ifndef SKIP_READ_FENCE
        ptx::fence_proxy_async(ptx::space_shared);  // this thread's reads, before the next multicast's write
#endif
        if (threadIdx.x == 0)  // the next round's bytes, on the next phase
            ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full, kTileInts * 4);
        kc::cluster_sync();  // every CTA's reads before rank 0 refills the tile
    }
    // No CTA exits while rank 0's multicast may still target it.
    kc::cluster_sync();
}
