// Tile transpose through shared memory with the warp-collective matrix instructions: each block
// loads a 64 x 64 f16 tile with 16-byte vector loads (ld.global.v4) into a shared tile whose
// 16-byte chunks are XOR-swizzled by row (chunk c of row r at c ^ (r % 8)), so that the eight row
// addresses of an 8x8 matrix hit eight different bank groups. Each warp then moves 16 x 16
// sub-tiles: ldmatrix.x4 reads four 8x8 matrices into registers and stmatrix.x4.trans writes
// each one transposed into the transposed position of a second swizzled tile, which goes back to
// global memory with 16-byte vector stores (st.global.v4). Block b transposes rows
// [64 b, 64 b + 64) of in [rows, 64] into columns [64 b, 64 b + 64) of out [64, rows].
// From: PTX ISA 9.7.14.5.15-16 (ldmatrix, stmatrix .trans), the CUTLASS/CuTe SM90 pattern of
// swizzled shared tiles read with ldmatrix (seed 003: smem swizzle layouts Swizzle<3,4,3>).
#include "kernel_common.cuh"

constexpr int kN = 64;          // tile side, in halves
constexpr int kThreads = 128;
constexpr int kChunks = kN / 8; // 16-byte chunks per row

// Offset in halves of the 16-byte chunk holding (row, 8 * chunk .. 8 * chunk + 7).
__device__ inline int swz(int row, int chunk) { return row * kN + ((chunk ^ (row % 8)) * 8); }

extern "C" __global__ void __launch_bounds__(kThreads) ldmatrix_transpose(const uint4* in, uint4* out, int rows) {
    __shared__ alignas(128) unsigned short src[kN * kN];
    __shared__ alignas(128) unsigned short dst[kN * kN];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int row0 = blockIdx.x * kN;

    // 512 chunks of 8 halves, 4 per thread, consecutive threads on consecutive chunks of a row.
    for (int i = tid; i < kN * kChunks; i += kThreads) {
        const int r = i / kChunks, ch = i % kChunks;
        *reinterpret_cast<uint4*>(&src[swz(r, ch)]) = in[(row0 + r) * kChunks + ch];
    }
    __syncthreads();

    // Warp w moves the four 16x16 sub-tiles of row band w. Matrix q of a sub-tile is its 8x8
    // block (q % 2, q / 2); lane l addresses row l % 8 of matrix l / 8.
    const int q = lane / 8, qi = q % 2, qj = q / 2;
    for (int bj = 0; bj < kN / 16; ++bj) {
        const int bi = warp;
        uint32_t r[4];
        kc::ldmatrix_x4(r, kc::smem_addr(&src[swz(16 * bi + 8 * qi + lane % 8, 2 * bj + qj)]));
        // Block (i, j) of the source becomes block (j, i) of the transpose, each 8x8 transposed.
        kc::stmatrix_x4_trans(r, kc::smem_addr(&dst[swz(16 * bj + 8 * qj + lane % 8, 2 * bi + qi)]));
    }
    __syncthreads();

    const int out_chunks = rows / 8;  // 16-byte chunks per row of out
    for (int i = tid; i < kN * kChunks; i += kThreads) {
        const int r = i / kChunks, ch = i % kChunks;
        out[r * out_chunks + blockIdx.x * kChunks + ch] = *reinterpret_cast<const uint4*>(&dst[swz(r, ch)]);
    }
}
