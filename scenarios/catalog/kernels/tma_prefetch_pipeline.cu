// A two-stage TMA load pipeline with L2 prefetch ahead of the loads: each block walks its tiles
// (16 x 64 ints) of a 2-D tensor; one elected thread keeps the next tiles' loads in flight, one
// mbarrier per stage (count 1, arrive.expect_tx with the tile's bytes), and prefetches the tile
// after those into L2 with cp.async.bulk.prefetch.tensor, so each load finds its bytes in L2.
// Every thread waits on the stage's parity, reads its elements and writes 2 * x + 1 to global
// memory with plain stores; after a __syncthreads the elected thread refills the stage.
// From: CUDA C++ Programming Guide 4.11.2.1.1 (prefetch_kernel: memcpy_async_tx, explicit phase
// tracking), with 2-D tiles through a tensor map (4.11.2.2) and the prefetch of 4.11.2.
// The guide refills the stage right after the __syncthreads. The threads' reads of the stage
// are generic-proxy reads and the refill is an async-proxy write, so the refilling thread puts a
// fence.proxy.async between them (what DeepEP PR 642 added to its TMA loads).
// Twins: expect_tx_too_low (-DEXPECT_BYTES=2048) announces half a tile; refill_without_read_fence
// (-DSKIP_READ_FENCE) drops the fence, which the model's write-after-read proxy rule reports at
// the refill (proxy.async_write_after_generic, docs/semantics.md B12).
#include "kernel_common.cuh"

constexpr int kThreads = 128;
constexpr int kStages = 2;
constexpr int kTileRows = 16, kTileCols = 64;
constexpr int kTileInts = kTileRows * kTileCols;
#ifndef EXPECT_BYTES
#define EXPECT_BYTES (kTileInts * 4)
#endif

// Tile b of this block is tile (b * gridDim.x + blockIdx.x) of the tensor: rows 16 * that.
__device__ inline int tile_row(int b) { return (b * static_cast<int>(gridDim.x) + static_cast<int>(blockIdx.x)) * kTileRows; }

__device__ inline void load_tile(const CUtensorMap* map, int* dst, uint64_t* bar, int b) {
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, bar, EXPECT_BYTES);
    const int32_t coords[2] = {0, tile_row(b)};  // {column, row}: fastest dimension first
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, dst, map, coords, bar);
}

// out has the input's shape [rows, 64]; each block handles `tiles` tiles.
extern "C" __global__ void __launch_bounds__(kThreads)
    tma_prefetch_pipeline(const __grid_constant__ CUtensorMap in_map, int* out, int tiles) {
    __shared__ alignas(128) int stage[kStages][kTileInts];
    __shared__ uint64_t full[kStages];
    const int tid = threadIdx.x;
    if (tid == 0)
        for (int s = 0; s < kStages; ++s) ptx::mbarrier_init(&full[s], 1);  // the elected thread's arrive
    __syncthreads();

    if (kc::is_elected()) {
        for (int s = 0; s < kStages && s < tiles; ++s) load_tile(&in_map, stage[s], &full[s], s);
        for (int s = kStages; s < 2 * kStages && s < tiles; ++s) kc::tma_prefetch_2d(&in_map, 0, tile_row(s));
    }

    uint32_t parity = 0;
    for (int b = 0, s = 0; b < tiles; ++b) {
        kc::wait_parity(&full[s], parity);
        int* dst = out + tile_row(b) * kTileCols;
        for (int i = tid; i < kTileInts; i += kThreads) dst[i] = 2 * stage[s][i] + 1;
        __syncthreads();  // every thread's reads of stage s happen before the refill
        if (kc::is_elected() && b + kStages < tiles) {
#ifndef SKIP_READ_FENCE
            // Order the block's generic reads (brought here by the barrier) before the TMA write.
            ptx::fence_proxy_async(ptx::space_shared);
#endif
            load_tile(&in_map, stage[s], &full[s], b + kStages);  // its bytes were prefetched
            if (b + 2 * kStages < tiles) kc::tma_prefetch_2d(&in_map, 0, tile_row(b + 2 * kStages));
        }
        if (++s == kStages) {
            s = 0;
            parity ^= 1;
        }
    }
}
