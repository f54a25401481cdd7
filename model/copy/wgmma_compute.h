#pragma once
// The arithmetic of one wgmma.mma_async.m64nNk16.f32.<f16|bf16> for one warp's 16 rows,
// read from a CTA's shared-memory image.
//
// Summation order: for each D element, the 16 products A[m][k0+j] * B[n][k0+j] (exact in
// f32: 11 x 11 significand bits at most) are added in j order to an f32 sum starting at
// +0, each addition rounded to nearest even; with scale_d 1 the previous D is added last.
// PTX does not fix the tensor core's order or internal precision, so the catalog's
// scenarios keep every partial sum an integer below 2^24, where all orders agree.
#include <cstdint>
#include <vector>

#include "scenarios/enums.h"

namespace tmasim::model {

struct WgmmaOperands {
    const uint8_t* smem = nullptr;  // the CTA's shared memory
    DType type = DType::f16;        // f16 or bf16 (A and B alike)
    Swizzle swizzle = Swizzle::b32;
    int64_t a_base = 0, b_base = 0; // buffer offsets in smem
    int64_t k_total = 16;           // K of both buffers ([64, K] and [N, K])
    int n = 8;
    int64_t k0 = 0;                 // first column of the 16-wide slice
};

// Rows 16*warp_in_group .. +15 of D = A * B^T (+ `chain` when scale_d), row-major 16 x N.
// `chain` holds the same rows (16 x N) of the accumulator the mma adds to.
std::vector<float> wgmma_warp_rows(const WgmmaOperands& in, int warp_in_group, bool scale_d,
                                   const std::vector<float>& chain);

}  // namespace tmasim::model
