// 1-D bulk copy (TMA without a tensor map) read-modify-write: one elected thread copies 4 KiB
// global -> shared with cp.async.bulk and tells the cuda::barrier how many bytes to expect,
// every thread arrives and waits on its token, adds one to the buffer, fences its generic
// writes into the async proxy (fence.proxy.async.shared::cta) before the __syncthreads, and the
// elected thread stores the buffer back with a bulk copy and waits until it has been read.
// From: CUDA C++ Programming Guide 4.11.2.1, add_one_kernel, "Version 3: cuda::ptx::cp_async_bulk".
#include "kernel_common.cuh"

using barrier = cuda::barrier<cuda::thread_scope_block>;
static constexpr int buf_len = 1024;

extern "C" __global__ void bulk_copy_1d(int* data, size_t offset) {
    // A bulk copy's shared destination must be 16-byte aligned.
    __shared__ alignas(16) int smem_data[buf_len];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);  // every thread of the block arrives
    __syncthreads();

    if (kc::is_elected()) {
        // Shared destination in the cluster window (a CTA is a cluster of one), completion on bar.
        ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, smem_data, data + offset, sizeof(smem_data),
                           cuda::device::barrier_native_handle(bar));
        // cp_async_bulk does not count its bytes on the barrier: say how many will come.
        cuda::device::barrier_expect_tx(bar, sizeof(smem_data));
    }
    barrier::arrival_token token = bar.arrive();
    bar.wait(std::move(token));  // the phase completes once all threads arrived and all bytes landed

    for (int i = threadIdx.x; i < buf_len; i += blockDim.x) smem_data[i] += 1;

    // Each writer orders its generic writes before later async-proxy reads, then the barrier
    // brings every writer's fence before the elected thread's bulk store.
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();

    if (kc::is_elected()) {
        ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, data + offset, smem_data, sizeof(smem_data));
        ptx::cp_async_bulk_commit_group();
        // The buffer may be reused (or the CTA exit) once the store has read it.
        ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
    }
}
