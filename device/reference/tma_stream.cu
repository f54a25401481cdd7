// The TMA stream pipeline by hand (scenarios/catalog/bench/tma_stream.yaml): 64 x 64 f32
// tiles, 4 stages, one elected producer issuing expect_tx + the tensor load, every thread
// waiting with parity, a sync releasing each stage.
extern "C" __global__ void __launch_bounds__(128) reference_kernel(const __grid_constant__ TensorMap map,
                                                                   unsigned char*, REF_UNUSED_PARAMS) {
    constexpr int kStages = 4;
    constexpr unsigned kTileBytes = 64 * 64 * 4;
    const unsigned stage0 = aligned_smem_base();
    const unsigned full0 = stage0 + kStages * kTileBytes;  // the scenario's layout: buffers, then barriers
    const int row0 = (int)blockIdx.x * 32768;
    if (threadIdx.x == 0)
        for (int s = 0; s < kStages; ++s) mbar_init(full0 + 8 * s, 1);
    __syncthreads();
    const bool producer = threadIdx.x < 32 && elect_one();
    if (producer)
        for (int s = 0; s < kStages; ++s) {
            mbar_arrive_expect_tx(full0 + 8 * s, kTileBytes);
            tma_load_2d(stage0 + s * kTileBytes, &map, 0, row0 + s * 64, full0 + 8 * s);
        }
    for (int t = 0; t < TMASIM_TILES; ++t) {
        const int s = t % kStages;
        mbar_wait_parity(full0 + 8 * s, (t / kStages) & 1);
        __syncthreads();
        if (producer && t + kStages < TMASIM_TILES) {
            mbar_arrive_expect_tx(full0 + 8 * s, kTileBytes);
            tma_load_2d(stage0 + s * kTileBytes, &map, 0, row0 + (t + kStages) * 64, full0 + 8 * s);
        }
    }
}
