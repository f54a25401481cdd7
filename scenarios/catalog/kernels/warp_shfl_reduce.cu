// Warp reduction with shuffles: each thread loads a float4 with one 16-byte vector load
// (ld.global.v4.f32) and adds its four values left to right, then the warp sums the 32 partials
// in five butterfly rounds (shfl.sync.bfly.b32 with lane masks 16, 8, 4, 2, 1: v += v from lane
// l ^ mask), after which every lane holds the same total and lane 0 writes one value per warp.
// Float addition is commutative, so both lanes of a pair compute the same sum bit for bit.
// From: CUDA C++ Programming Guide, warp shuffle functions (__shfl_xor_sync butterfly reduction);
// the per-warp stage of the reductions in Triton/Gluon (layout.reduce's shfl.sync.bfly rounds).
#include "kernel_common.cuh"

// in: one float4 per thread of the grid; out: one float per warp of the grid.
extern "C" __global__ void __launch_bounds__(256) warp_shfl_reduce(const float4* in, float* out) {
    const int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    const float4 x = in[gtid];
    float v = ((x.x + x.y) + x.z) + x.w;
    for (int mask = 16; mask > 0; mask >>= 1) v = v + __shfl_xor_sync(0xffffffffu, v, mask);
    if (threadIdx.x % 32 == 0) out[gtid / 32] = v;
}
