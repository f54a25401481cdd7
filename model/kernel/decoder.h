#pragma once
// PTX -> DecodedProgram (model/kernel/decoded_program.h), once per run. Every instruction of
// every function the entry reaches is decoded before the kernel starts, so an instruction the
// front end does not support stops the run before it begins: a ScenarioError naming the
// instruction, its PTX file:line:col and its source line, exit 2. Nothing is skipped.
#include <map>
#include <utility>
#include <vector>

#include "model/kernel/decoded_program.h"
#include "model/kernel/kernel_layout.h"
#include "ptx/kernel_binding.h"

namespace tmasim::model::kernel {

// What a unit instruction's operands are, in the instruction's frame: each PTX operand as a
// slot (a value), an address (a base slot, -1 for an absolute one, plus an offset; the
// tensor form's coordinates), a vector of slots, or a sink.
struct UnitOperand {
    enum class Kind : uint8_t { value, address, vector, sink };
    Kind kind = Kind::value;
    int32_t slot = -1;
    int64_t offset = 0;
    std::vector<int32_t> elems;   // vector entries; an address's coordinates
};
struct UnitInstruction {
    const ptx::Instruction* ins = nullptr;
    const ptx::Function* fn = nullptr;
    std::vector<UnitOperand> operands;
};

struct DecodedKernel {
    DecodedProgram program;
    std::vector<UnitInstruction> units;  // by DInst::extra of Opc::unit instructions
};

// Decodes `k` for `layout`. `op_ids` maps (function index, instruction index) to the op id
// ptx::kernel_ops gave it.
DecodedKernel decode_kernel(const ptx::BoundKernel& k, const KernelLayout& layout);

// The n-th type modifier of an instruction (`cvt.rn.f32.s32`: 0 is f32, 1 is s32); Ty::none.
Ty instruction_type(const ptx::Instruction& ins, int nth = 0);

// "k.ptx:120:5 (t1.cu:17:10): `mov.u32`": where an instruction is, for errors.
std::string instruction_place(const ptx::BoundKernel& k, const ptx::Function& f, const ptx::Instruction& ins);

}  // namespace tmasim::model::kernel
