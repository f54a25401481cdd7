// The bulk-copy stream by hand (scenarios/catalog/bench/bulk_stream.yaml): 16 KiB
// cp.async.bulk copies into 4 stages, one elected producer, parity waits, a sync per stage.
extern "C" __global__ void __launch_bounds__(128) reference_kernel(unsigned char* src, REF_UNUSED_PARAMS) {
    constexpr int kStages = 4;
    constexpr unsigned kTileBytes = 16384;
    const unsigned stage0 = aligned_smem_base();
    const unsigned full0 = stage0 + kStages * kTileBytes;
    const unsigned char* const region = src + (size_t)blockIdx.x * 2097152 * 4;
    if (threadIdx.x == 0)
        for (int s = 0; s < kStages; ++s) mbar_init(full0 + 8 * s, 1);
    __syncthreads();
    const bool producer = threadIdx.x < 32 && elect_one();
    if (producer)
        for (int s = 0; s < kStages; ++s) {
            mbar_arrive_expect_tx(full0 + 8 * s, kTileBytes);
            bulk_load(stage0 + s * kTileBytes, region + (size_t)s * kTileBytes, kTileBytes, full0 + 8 * s);
        }
    for (int t = 0; t < TMASIM_TILES; ++t) {
        const int s = t % kStages;
        mbar_wait_parity(full0 + 8 * s, (t / kStages) & 1);
        __syncthreads();
        if (producer && t + kStages < TMASIM_TILES) {
            mbar_arrive_expect_tx(full0 + 8 * s, kTileBytes);
            bulk_load(stage0 + s * kTileBytes, region + (size_t)(t + kStages) * kTileBytes, kTileBytes, full0 + 8 * s);
        }
    }
}
