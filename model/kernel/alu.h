#pragma once
// What the ALU instructions compute, lane by lane, on a warp's register file (plain C++,
// tested without SystemC). Registers are 64-bit slots, 32 lanes each: a 32-bit value sits in
// the low bits, zero-extended; f16 in the low 16; predicates are 0 or 1. Integer results wrap
// at their type's width; float results are IEEE with the instruction's rounding (fp-contract
// off, as the device compiles with --fmad=false where the model's own ops are concerned; a
// kernel's fma is an fma). The `.approx` instructions (ex2, lg2, sin, cos, tanh, rcp, rsqrt)
// use the correctly rounded C++ functions: they can differ from the GPU's in the last bits
// (docs/kernels.md says which).
#include <cstdint>
#include <string>

#include "model/kernel/decoded_program.h"

namespace tmasim::model::kernel {

// A warp's register file: slot s, lane l at [s * 32 + l].
inline uint64_t* lanes_of_slot(uint64_t* regs, int32_t slot) { return regs + static_cast<size_t>(slot) * 32; }

struct AluState {
    uint32_t carry = 0;  // the CC.CF flag of each lane (add.cc, addc, sub.cc, subc, mad.cc, madc)
};

// Runs `d` (an ALU opcode: data movement, integer, bit, compare, select, convert, float) for
// the lanes of `mask`. Throws std::logic_error for an opcode that is not an ALU one.
void run_alu(const DInst& d, const DecodedProgram& p, uint64_t* regs, uint32_t mask, AluState& st);

// Warp collectives, for the lanes of `mask` together: shfl, vote, match, redux, elect,
// activemask. `mask` is the warp's executing lanes (membermask is checked by the caller).
void run_collective(const DInst& d, uint64_t* regs, uint32_t mask);

// Why run_alu / run_collective cannot run `d` as decoded ("" when they can): a type or
// modifier combination they do not implement. The decoder refuses such an instruction.
std::string alu_refusal(const DInst& d);

// Conversions shared with the memory instructions and wgmma (model/kernel/alu_convert.cpp).
uint64_t convert_value(uint64_t bits, Ty from, Ty to, Round r, bool sat, bool ftz);
float ty_to_float(uint64_t bits, Ty t);   // f16, bf16, f32 (and e4m3/e5m2 bytes)
uint64_t float_to_ty(float f, Ty t);      // round to nearest even

}  // namespace tmasim::model::kernel
