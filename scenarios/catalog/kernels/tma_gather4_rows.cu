// Row gather with Blackwell's TMA gather4 (sm_100a): an embedding-style lookup of 16 rows of a
// [256, 64] f32 table by index. One elected thread reads the indices and issues four
// cp.async.bulk.tensor.2d.tile::gather4 loads, each bringing 4 whole rows (the map's box is one
// row, [1, 64]) into consecutive rows of a [16, 64] shared tile, counted on one mbarrier
// (4 x 4 x 256 bytes); every thread waits and copies the tile to out.
// From: seed 000 (Gluon's "Native TMA Gather and Scatter": async_gather over row offsets,
// four rows per gather4); PTX ISA 9.7.9.27.1.2 (.tile::gather4); semantics.md G34, G35.
#include "kernel_common.cuh"

constexpr int kRows = 16, kCols = 64;

// table: [rows, 64] f32 through table_map (box [1, 64]); idx: 16 row numbers; out: [16, 64].
extern "C" __global__ void __launch_bounds__(128)
    tma_gather4_rows(const __grid_constant__ CUtensorMap table_map, const int* idx, float* out) {
    __shared__ alignas(128) float tile[kRows * kCols];
    __shared__ uint64_t full;
    if (threadIdx.x == 0) ptx::mbarrier_init(&full, 1);
    __syncthreads();
    if (kc::is_elected()) {
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full, sizeof(tile));
        for (int g = 0; g < kRows / 4; ++g) {
            // {column, row 0, row 1, row 2, row 3}: the four rows land one after another.
            const int32_t coords[5] = {0, idx[4 * g], idx[4 * g + 1], idx[4 * g + 2], idx[4 * g + 3]};
            ptx::cp_async_bulk_tensor_tile_gather4(ptx::space_shared, ptx::space_global, &tile[4 * g * kCols],
                                                   &table_map, coords, &full);
        }
    }
    kc::wait_parity(&full, 0);
    for (int i = threadIdx.x; i < kRows * kCols; i += blockDim.x) out[i] = tile[i];
}
