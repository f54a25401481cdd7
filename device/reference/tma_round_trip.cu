// The TMA round trip by hand (scenarios/catalog/bench/tma_round_trip.yaml): load a 64 x 64
// f32 tile, add 1 to every element, fence toward the async proxy, sync, store it with a
// tensor store and wait for the store's read before the next load.
extern "C" __global__ void __launch_bounds__(128) reference_kernel(const __grid_constant__ TensorMap in_map,
                                                                   const __grid_constant__ TensorMap out_map,
                                                                   unsigned char*, unsigned char*, REF_UNUSED_PARAMS) {
    constexpr unsigned kTileBytes = 64 * 64 * 4;
    extern __shared__ unsigned char dyn_smem[];
    const unsigned tile = aligned_smem_base();
    float* const elems = (float*)(dyn_smem + (tile - smem_u32(dyn_smem)));
    const unsigned full = tile + kTileBytes;
    const int row0 = (int)blockIdx.x * 32768;
    if (threadIdx.x == 0) mbar_init(full, 1);
    __syncthreads();
    const bool producer = threadIdx.x < 32 && elect_one();
    for (int t = 0; t < TMASIM_TILES; ++t) {
        if (producer) {
            mbar_arrive_expect_tx(full, kTileBytes);
            tma_load_2d(tile, &in_map, 0, row0 + t * 64, full);
        }
        mbar_wait_parity(full, t & 1);
        for (int e = threadIdx.x; e < 64 * 64; e += 128) elems[e] = elems[e] + 1.0f;
        fence_proxy_async();
        __syncthreads();
        if (producer) {
            tma_store_2d(&out_map, 0, row0 + t * 64, tile);
            bulk_commit();
            bulk_wait_read_0();
        }
    }
}
