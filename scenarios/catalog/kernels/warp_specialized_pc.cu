// Warp-specialized producer/consumer through a 4-stage ring of shared buffers: warp 0 is the
// producer, one elected lane of it issuing a TMA load per tile; warps 1-2 consume. full[s]
// (count 1: the producer's arrive.expect_tx) says stage s holds a tile, empty[s] (count 64: every
// consumer thread) that the consumers are done with it. Tile t uses stage t % 4 and phase
// t / 4 of both barriers: the consumers wait on full[s] with parity (t / 4) & 1; the producer
// waits on empty[s] for the phase before, parity ((t / 4) & 1) ^ 1, which on the fresh barrier of
// the first round names the phase "before phase 0" and passes at once (CUTLASS's producer starts
// its pipeline state at phase 1 for the same reason). The consumers read the stage with
// generic loads, so the producer fences the proxies after its empty wait, before the TMA write.
// Each consumer thread writes 2 * x + 1 of its 16 elements of the 32 x 32 f32 tile to out.
// From: CUDA C++ Programming Guide 4.11.1.3 (producer_consumer_pattern with ready/filled
// barriers), with TMA loads and full/empty mbarrier rings as in CUTLASS's PipelineTmaAsync.
// Twins: consumer_release_before_read (-DRELEASE_EARLY: a consumer arrives on empty[s] before
// its last read of the stage); wrong_parity (-DWRONG_PARITY: the producer waits on empty[s] with
// the consumers' parity, phase t / 4 itself, which on the fresh barrier needs arrivals that
// only come after the tile it is about to load: every warp waits forever).
#include "kernel_common.cuh"

constexpr int kStages = 4;
constexpr int kConsumerThreads = 64;  // warps 1 and 2
constexpr int kTileRows = 32, kTileCols = 32;
constexpr int kTileElems = kTileRows * kTileCols;
constexpr int kPerThread = kTileElems / kConsumerThreads;  // 16

extern "C" __global__ void __launch_bounds__(32 + kConsumerThreads)
    warp_specialized_pc(const __grid_constant__ CUtensorMap in_map, float* out, int tiles) {
    __shared__ alignas(128) float stage[kStages][kTileElems];
    __shared__ uint64_t full[kStages], empty[kStages];
    const int warp = threadIdx.x / 32;
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            ptx::mbarrier_init(&full[s], 1);
            ptx::mbarrier_init(&empty[s], kConsumerThreads);
        }
    }
    __syncthreads();

    if (warp == 0) {
        if (kc::elect_one()) {  // producer: one lane issues every copy
            for (int t = 0; t < tiles; ++t) {
                const int s = t % kStages;
                const uint32_t phase = (t / kStages) & 1;
#ifdef WRONG_PARITY
                kc::wait_parity(&empty[s], phase);
#else
                kc::wait_parity(&empty[s], phase ^ 1);
#endif
                // The consumers' generic reads of stage s (acquired by the wait) before the async write.
                ptx::fence_proxy_async(ptx::space_shared);
                ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full[s],
                                               kTileElems * 4);
                const int32_t coords[2] = {0, t * kTileRows};
                ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, stage[s], &in_map, coords, &full[s]);
            }
        }
        return;
    }

    const int c = threadIdx.x - 32;  // consumer thread 0..63
    for (int t = 0; t < tiles; ++t) {
        const int s = t % kStages;
        kc::wait_parity(&full[s], (t / kStages) & 1);
        float v[kPerThread];
        for (int i = 0; i < kPerThread - 1; ++i) v[i] = stage[s][c + i * kConsumerThreads];
#ifdef RELEASE_EARLY
        ptx::mbarrier_arrive(&empty[s]);  // too early: the last read below still uses stage s
#endif
        v[kPerThread - 1] = stage[s][c + (kPerThread - 1) * kConsumerThreads];
#ifndef RELEASE_EARLY
        ptx::mbarrier_arrive(&empty[s]);  // stage s may be refilled
#endif
        float* dst = out + t * kTileElems;
        for (int i = 0; i < kPerThread; ++i) dst[c + i * kConsumerThreads] = 2.0f * v[i] + 1.0f;
    }
}
