// The multicast stream by hand (scenarios/catalog/bench/multicast_cluster.yaml): clusters of
// two, rank r loading 32-row half r of each tile into both CTAs (ctaMask 0b11), 4 stages,
// every thread waiting with parity, a cluster sync releasing each stage in both CTAs.
extern "C" __global__ void __launch_bounds__(128) reference_kernel(const __grid_constant__ TensorMap map,
                                                                   unsigned char*, REF_UNUSED_PARAMS) {
    constexpr int kStages = 4;
    constexpr unsigned kHalfBytes = 32 * 64 * 4;
    const unsigned half0 = aligned_smem_base();
    const unsigned full0 = half0 + 2 * kStages * kHalfBytes;
    const unsigned rank = cluster_rank();
    const int row0 = (int)(blockIdx.x / 2) * 32768 + (int)rank * 32;
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) mbar_init(full0 + 8 * s, 1);
        fence_mbarrier_init();
    }
    cluster_sync();
    const bool producer = threadIdx.x < 32 && elect_one();
    if (producer)
        for (int s = 0; s < kStages; ++s) {
            mbar_arrive_expect_tx(full0 + 8 * s, 2 * kHalfBytes);
            tma_load_2d_multicast(half0 + (2 * s + rank) * kHalfBytes, &map, 0, row0 + s * 64, full0 + 8 * s, 3);
        }
    for (int t = 0; t < TMASIM_TILES; ++t) {
        const int s = t % kStages;
        mbar_wait_parity(full0 + 8 * s, (t / kStages) & 1);
        cluster_sync();
        if (producer && t + kStages < TMASIM_TILES) {
            mbar_arrive_expect_tx(full0 + 8 * s, 2 * kHalfBytes);
            tma_load_2d_multicast(half0 + (2 * s + rank) * kHalfBytes, &map, 0, row0 + (t + kStages) * 64,
                                  full0 + 8 * s, 3);
        }
    }
}
