// The guide's LDGSTS prefetch pipeline by hand (scenarios/catalog/bench/ldgsts_stream.yaml):
// 4 stages of 16 KiB, each thread copying 16 bytes eight times per stage, one commit group
// per stage (empty once nothing is left), wait until at most 3 are pending, sync.
extern "C" __global__ void __launch_bounds__(128) reference_kernel(unsigned char* src, REF_UNUSED_PARAMS) {
    constexpr int kStages = 4;
    constexpr unsigned kTileBytes = 16384;
    const unsigned stage0 = aligned_smem_base();
    const unsigned char* const region = src + (size_t)blockIdx.x * 2097152 * 4;
    const unsigned mine = threadIdx.x * 16;
    for (int s = 0; s < kStages; ++s) {
#pragma unroll
        for (int k = 0; k < 8; ++k)
            cp_async_cg_16(stage0 + s * kTileBytes + k * 2048 + mine, region + (size_t)s * kTileBytes + k * 2048 + mine);
        cp_async_commit();
    }
    for (int t = 0; t < TMASIM_TILES; ++t) {
        const int s = t % kStages;
        cp_async_wait<kStages - 1>();
        __syncthreads();
        if (t + kStages < TMASIM_TILES) {
#pragma unroll
            for (int k = 0; k < 8; ++k)
                cp_async_cg_16(stage0 + s * kTileBytes + k * 2048 + mine,
                               region + (size_t)(t + kStages) * kTileBytes + k * 2048 + mine);
        }
        cp_async_commit();
    }
}
