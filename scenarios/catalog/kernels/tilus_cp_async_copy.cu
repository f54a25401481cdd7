// tilus' cp.async matmul (MatmulV3) in plain CUDA: for each k step the block copies its A tile
// [32, 16] and B tile [16, 32] (f16, row-major) from global to shared memory with 16-byte
// cp.async copies (no registers in between), waits for all of its copies (cp.async.wait_all,
// tilus' copy_async_wait_all), and a __syncthreads (tilus' sync) makes every thread's copies
// visible to the others before the dot product reads them; a second __syncthreads keeps the
// tiles alive until everyone is done. Accumulation is f32 in k order, the result cast to f16.
// From: seed 002, tilus "Use Async Copy" (copy_async / copy_async_wait_all / sync, C = A @ B with
// A [m, k] and B [k, n] row-major); block_m = block_n = 32, block_k = 16, 4 warps.
#include <cuda_fp16.h>

#include "kernel_common.cuh"

constexpr int kBM = 32, kBN = 32, kBK = 16;
constexpr int kThreads = 128;

// Grid: (m_size / 32) * (n_size / 32) blocks, block b covers rows 32 * (b % mt), cols 32 * (b / mt).
extern "C" __global__ void __launch_bounds__(kThreads)
    tilus_cp_async_copy(int m_size, int n_size, int k_size, const __half* a, const __half* b, __half* c) {
    __shared__ alignas(128) __half sa[kBM][kBK];
    __shared__ alignas(128) __half sb[kBK][kBN];
    const int tid = threadIdx.x;
    const int mt = m_size / kBM;
    const int offset_m = kBM * (blockIdx.x % mt), offset_n = kBN * (blockIdx.x / mt);
    // Each thread owns 8 outputs: row tid / 4, columns 8 * (tid % 4) .. +7.
    const int row = tid / 4, col0 = 8 * (tid % 4);
    float acc[8] = {};

    for (int offset_k = 0; offset_k < k_size; offset_k += kBK) {
        // 64 chunks of 16 bytes (8 halves) per tile: threads 0-63 copy A's, 64-127 B's.
        if (tid < 64) {
            const int r = tid / 2, ch = tid % 2;
            kc::cp_async_16(&sa[r][8 * ch], a + (offset_m + r) * k_size + offset_k + 8 * ch);
        } else {
            const int r = (tid - 64) / 4, ch = (tid - 64) % 4;
            kc::cp_async_16(&sb[r][8 * ch], b + (offset_k + r) * n_size + offset_n + 8 * ch);
        }
        kc::cp_async_wait_all();  // this thread's copies have landed
        __syncthreads();          // ... and everyone's, for every thread
        for (int k = 0; k < kBK; ++k) {
            const float x = __half2float(sa[row][k]);
            // f16 x f16 is exact in f32, so an FMA and a multiply-then-add round alike.
            for (int j = 0; j < 8; ++j) acc[j] = acc[j] + x * __half2float(sb[k][col0 + j]);
        }
        __syncthreads();  // the tiles are overwritten by the next step's copies
    }
    for (int j = 0; j < 8; ++j) c[(offset_m + row) * n_size + offset_n + col0 + j] = __float2half_rn(acc[j]);
}
