#pragma once
// What a kernel's wgmma.mma_async computes, without time (PTX 9.7.15.5): the shared-memory
// matrix descriptors (9.7.15.5.1.2.2), the canonical layouts they describe, K-major or
// MN-major with each swizzling mode (9.7.15.5.1.2.1.3, in CuTe's terms:
// K-major ((8,m),(T,2k)):((W/16*T,SBO),(1,T)) swizzled, ((8,m),(T,2k)):((1T,SBO),(1,LBO)) not;
// MN-major ((T,W/16,m),(8,k)):((1,T,LBO),(W/16*T,SBO)) swizzled, ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
// not, where T is the elements of 16 bytes and W the swizzle width), and the register
// fragments of D (and of A when it comes from registers) that each thread of the warpgroup holds.
#include <cstdint>
#include <string>
#include <vector>

#include "model/kernel/decoded_program.h"

namespace tmasim::model::kernel {

struct SmemDescriptor {
    int64_t start = 0;  // byte address in shared memory
    int64_t lbo = 0;    // leading dimension byte offset
    int64_t sbo = 0;    // stride dimension byte offset
    int base_offset = 0;
    int swizzle_bytes = 0;  // 0 (none / interleave), 32, 64, 128
};
SmemDescriptor decode_descriptor(uint64_t desc);

// The byte address of element (mn, k) of an operand in the canonical layout of `d`: K-major
// (`mn_major` false: k runs along the 16-byte rows) or MN-major; `bits` per element. The
// swizzle XORs address bits [4, 4+log2(W/16)) with bits [7, ...) (Swizzle<B,4,3>), which with
// base offset 0 is the pattern's own phase.
int64_t operand_address(const SmemDescriptor& d, int bits, bool mn_major, int mn, int k);

struct WgmmaShape {
    int n = 0, k = 0;                        // m64nNkK
    Ty dtype = Ty::f32, atype = Ty::f16, btype = Ty::f16;
    bool a_in_registers = false;
    bool trans_a = false, trans_b = false;  // MN-major operands
    bool negate_a = false, negate_b = false;
};
// From the instruction's opcode and immediates; "" or why it is refused.
std::string parse_wgmma_shape(const std::vector<std::string>& parts, WgmmaShape& s);

// D fragment of warp `w` (0-3 in the warpgroup), lane `l`, register `i` (f32 accumulators:
// N/2 registers): its row and column in the 64 x N tile.
void d_fragment(int w, int l, int i, int& row, int& col);
// A fragment from registers (f16/bf16: 4 registers of 2 elements): register `i`, half `h`.
void a_fragment(int w, int l, int i, int h, int& row, int& k);

}  // namespace tmasim::model::kernel
