// 2-D tensor-map (TMA) load, modify in shared memory, TMA store: the elected thread loads a
// 16 x 64 int tile at column x, row y into shared memory and arrives on the cuda::barrier with
// the tile's byte count (barrier_arrive_tx); the other threads just arrive; all wait on their
// token. Thread t adds t to element [0][t]; every thread fences its generic writes into the
// async proxy, __syncthreads, and the elected thread stores the tile back through the same map,
// waits until the store has read shared memory, and thread 0 invalidates the barrier.
// From: CUDA C++ Programming Guide 4.11.2.2 "Using TMA to transfer multi-dimensional arrays", Use.
// Twin tma_store_no_proxy_fence (-DSKIP_FENCE, the FlashKDA audit finding): only the
// __syncthreads between the generic writes and the TMA store that reads them.
#include "kernel_common.cuh"

using barrier = cuda::barrier<cuda::thread_scope_block>;
constexpr int SMEM_HEIGHT = 16;
constexpr int SMEM_WIDTH = 64;

// The map's box is SMEM_WIDTH x SMEM_HEIGHT (fastest first); x is the column, y the row.
extern "C" __global__ void tma_2d_load_modify_store(const __grid_constant__ CUtensorMap tensor_map, int x, int y) {
    // A tensor copy's shared box must be 128-byte aligned.
    __shared__ alignas(128) int smem_buffer[SMEM_HEIGHT][SMEM_WIDTH];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();  // the initialized barrier is visible to every thread

    barrier::arrival_token token;
    if (kc::is_elected()) {
        const int32_t coords[2] = {x, y};
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, &smem_buffer, &tensor_map, coords,
                                  cuda::device::barrier_native_handle(bar));
        // Arrive and announce the bytes the load will bring (arrive.expect_tx).
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(smem_buffer));
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));

    smem_buffer[0][threadIdx.x] += threadIdx.x;

#ifndef SKIP_FENCE
    // Generic writes become visible to the async proxy (the TMA store) only through a proxy fence.
    ptx::fence_proxy_async(ptx::space_shared);
#endif
    __syncthreads();

    if (kc::is_elected()) {
        const int32_t coords[2] = {x, y};
        ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &tensor_map, coords, &smem_buffer);
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
    }
    // End of the barrier's lifetime (mbarrier.inval): its 8 bytes could now be reused.
    if (threadIdx.x == 0) (&bar)->~barrier();
}
