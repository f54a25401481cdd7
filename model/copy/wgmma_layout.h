#pragma once
// Where wgmma's operands and accumulator fragments live (PTX 9.7.15.5.1).
//
// Operands are K-major tiles of 16-bit elements (f16/bf16) in shared memory, `rows` x
// `k_total`, in the canonical layout of a swizzle mode:
//   32B / 64B / 128B: each row is exactly one swizzle row (k_total * 2 == 32/64/128 bytes),
//     the rows follow each other, and the 16-byte chunks are XORed as a TMA load with that
//     swizzle writes them (semantics.md E28): a [rows, K] box loaded with that swizzle is
//     already in place. PTX's canonical form: Swizzle<B,4,3> o ((8,m),(T,2k)):((sT,SBO),(1,T)).
//   none: 8x8 core matrices (8 rows of 16 contiguous bytes, 128 bytes each), stored row of
//     core matrices after row: core matrix (row/8, k/8) at ((row/8) * (k_total/8) + k/8) * 128.
//     A K slice's descriptor then has LBO = 128 (the next core matrix along K) and
//     SBO = k_total / 8 * 128 (the next 8 rows).
// Offsets are from the buffer's first byte; the buffer starts on the layout's repeat
// (256/512/1024 bytes; the validator requires that alignment), so relative and absolute
// swizzling agree.
#include <cstdint>
#include <utility>

#include "scenarios/enums.h"

namespace tmasim::model {

constexpr int kWgmmaElementBytes = 2;  // f16 / bf16
constexpr int kWgmmaK = 16;            // K of one m64nNk16 instruction
constexpr int kWgmmaM = 64;

// Byte offset of element (row, k) of a rows x k_total operand in the layout of `mode`.
int64_t wgmma_operand_offset(Swizzle mode, int64_t k_total, int64_t row, int64_t k);

// The accumulator D (f32, 64 x N) held by a warpgroup: register i (0 .. N/2-1) of lane
// `lane` of the group's warp `warp_in_group` (0..3) holds element (row, col) with
//   row = 16 * warp_in_group + lane / 4 + 8 * ((i / 2) % 2)
//   col = 8 * (i / 4) + 2 * (lane % 4) + i % 2
// (PTX 9.7.15.5.1.1.1, figure "WGMMA .m64nNk16 register fragment layout for accumulator D").
std::pair<int, int> wgmma_fragment_coord(int warp_in_group, int lane, int i);

}  // namespace tmasim::model
