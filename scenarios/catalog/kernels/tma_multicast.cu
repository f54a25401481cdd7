// TMA multicast in a cluster of 4 CTAs: one 2-D tensor load with .multicast::cluster (ctaMask
// 0b1111), issued by rank 0, writes the cluster's 32 x 32 int tile into the same shared offset of
// every CTA and counts the bytes on each CTA's own barrier at the same offset. Each CTA inits its
// barrier and announces the tile's bytes on it; the init must reach the peers before the
// multicast can complete on their barriers: fence.mbarrier_init.release.cluster, then the
// cluster barrier (arrive is a release, wait an acquire) before rank 0 issues the load. Each CTA
// then writes tile + 1000 * rank to its own slice of out, and a last cluster barrier keeps every
// CTA alive until all of them are done.
// From: PTX ISA 9.7.9.25.4.1 / 9.7.9.27.1.2 (cp.async.bulk.tensor .multicast::cluster, ctaMask),
// 9.7.13.15 (mbarrier in a cluster); seed 003 (CuTe's multicast TMA with mcast_mask
// (1 << cluster_size) - 1); CUDA C++ Programming Guide 4.11.2 (multicast).
// Twin multicast_no_init_fence (-DSKIP_INIT_FENCE): neither fence.mbarrier_init nor the cluster
// barrier between the peers' inits and rank 0's multicast.
#include "kernel_common.cuh"

constexpr int kClusterSize = 4;
constexpr int kTile = 32;
constexpr int kTileInts = kTile * kTile;

// in: [clusters * 32, 32] ints, tile k for cluster k; out: [ctas * 32, 32], one tile per CTA.
extern "C" __global__ void __launch_bounds__(128) tma_multicast(const __grid_constant__ CUtensorMap in_map, int* out) {
    __shared__ alignas(128) int tile[kTileInts];
    __shared__ uint64_t full;
    const uint32_t rank = kc::cluster_rank();
    const int cluster = blockIdx.x / kClusterSize;
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&full, 1);
#ifndef SKIP_INIT_FENCE
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);  // the init, visible to the peers
#endif
        // This CTA's tile bytes: a multicast counts its bytes on every destination's own barrier.
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full, kTileInts * 4);
    }
#ifndef SKIP_INIT_FENCE
    kc::cluster_sync();  // every CTA's init happens before rank 0's multicast
#else
    __syncthreads();     // only this CTA's threads see its init
#endif
    if (rank == 0 && threadIdx.x == 0) {
        const int32_t coords[2] = {0, cluster * kTile};
        const uint16_t mask = (1u << kClusterSize) - 1;
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile, &in_map, coords, &full, mask);
    }
    kc::wait_parity(&full, 0);
    int* dst = out + blockIdx.x * kTileInts;
    for (int i = threadIdx.x; i < kTileInts; i += blockDim.x) dst[i] = tile[i] + 1000 * static_cast<int>(rank);
    // No CTA exits while a peer's copy or barrier traffic may still target it.
    kc::cluster_sync();
}
