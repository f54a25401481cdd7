// A TMA load -> modify -> TMA store stream through two shared buffers: while the block updates
// tile t in buffer t % 2 (x * 3 + 1, in place), the next tile is already loading into the other
// buffer; after the proxy fence and __syncthreads the elected thread stores the tile with a TMA
// store and commits it as a bulk group. Before the next load overwrites a buffer, the elected
// thread waits with cp.async.bulk.wait_group.read until the store that read it last is done
// reading (CuTe's tma_store_wait<N>): the one group still allowed in flight is the newest store.
// From: CUDA C++ Programming Guide 4.11.2.2 (tensor loads and stores, bulk async-groups) and the
// epilogue pattern of seed 003 (tma_store_arrive / tma_store_wait).
// Twin tma_store_source_overwrite (-DSTORE_WAIT=1): the wait lets the store of the buffer about to
// be refilled stay in flight, so the TMA load overwrites a store's source before it was read.
#include "kernel_common.cuh"

constexpr int kThreads = 128;
constexpr int kTileRows = 16, kTileCols = 64;
constexpr int kTileInts = kTileRows * kTileCols;
#ifndef STORE_WAIT
#define STORE_WAIT 0
#endif

__device__ inline void load_tile(const CUtensorMap* map, int* dst, uint64_t* bar, int t) {
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, bar, kTileInts * 4);
    const int32_t coords[2] = {0, t * kTileRows};
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, dst, map, coords, bar);
}

// One block streams `tiles` tiles of in (through in_map) into out (through out_map, same shape).
extern "C" __global__ void __launch_bounds__(kThreads) tma_load_store_ring(const __grid_constant__ CUtensorMap in_map,
                                                                        const __grid_constant__ CUtensorMap out_map,
                                                                        int tiles) {
    __shared__ alignas(128) int buf[2][kTileInts];
    __shared__ uint64_t full[2];
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&full[0], 1);
        ptx::mbarrier_init(&full[1], 1);
    }
    __syncthreads();
    const bool leader = kc::is_elected();
    if (leader) load_tile(&in_map, buf[0], &full[0], 0);

    for (int t = 0; t < tiles; ++t) {
        const int b = t % 2;
        if (leader && t + 1 < tiles) {
            // buf[b ^ 1] was the source of tile t - 1's store, committed one iteration ago: with
            // STORE_WAIT = 0 no store may still be reading shared memory.
            ptx::cp_async_bulk_wait_group_read(ptx::n32_t<STORE_WAIT>());
            load_tile(&in_map, buf[b ^ 1], &full[b ^ 1], t + 1);
        }
        kc::wait_parity(&full[b], (t / 2) % 2);
        for (int i = threadIdx.x; i < kTileInts; i += kThreads) buf[b][i] = 3 * buf[b][i] + 1;
        ptx::fence_proxy_async(ptx::space_shared);  // the writes, then the TMA store that reads them
        __syncthreads();
        if (leader) {
            const int32_t coords[2] = {0, t * kTileRows};
            ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &out_map, coords, buf[b]);
            ptx::cp_async_bulk_commit_group();
        }
    }
    // Shared memory must outlive the last stores' reads of it.
    if (leader) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
}
