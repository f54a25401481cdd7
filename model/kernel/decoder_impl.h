#pragma once
// The decoder's state, shared by decoder.cpp (functions, frames, operands, calls, control
// flow) and decode_opcodes.cpp (which DInst each PTX opcode becomes). Not for other files.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/kernel/decoder.h"

namespace tmasim::model::kernel {

class Decoder {
public:
    Decoder(const ptx::BoundKernel& k, const KernelLayout& layout);
    DecodedKernel run();

    // One inlined instance of a function: its registers' first slot, where its local
    // variables are, and where its formal params and returns are (the caller's argument
    // variables, for a callee).
    struct Frame {
        int fn = 0;
        const ptx::Function* f = nullptr;
        int32_t reg_base = 0;
        std::map<int, int64_t> local_of_variable;        // Function::variables index -> local offset
        std::map<std::string, int64_t> local_of_param;   // a callee's formal param / return -> local offset
        std::vector<int32_t> pc_of_ins;                  // first DInst of each PTX instruction
        std::vector<std::pair<size_t, int>> label_fixups;  // (DInst index, label index)
        std::vector<size_t> return_fixups;                // ret_inline DInsts: jump to the continuation
        int depth = 0;
    };

    // --- operands (decoder.cpp) ---
    int32_t constant(uint64_t value);
    int32_t special(const std::string& name);
    int32_t scratch();
    // A source operand as a slot, its immediates converted to `type`.
    int32_t value(Frame& fr, const ptx::Instruction& ins, const ptx::Operand& o, Ty type);
    // A destination operand (a register, or the sink).
    int32_t dest(Frame& fr, const ptx::Instruction& ins, const ptx::Operand& o);
    // A symbol's address in its space (shared offset, global address, param offset, local
    // offset with the private tag), for `mov r, sym` and address bases.
    uint64_t symbol_address(Frame& fr, const ptx::Instruction& ins, const ptx::Operand& o, int& space_out);
    UnitOperand unit_operand(Frame& fr, const ptx::Instruction& ins, const ptx::Operand& o);
    [[noreturn]] void unsupported(const Frame& fr, const ptx::Instruction& ins, const std::string& why) const;
    int32_t reg_slot(const Frame& fr, const ptx::Instruction& ins, const ptx::Operand& o) const;

    // --- opcodes (decode_opcodes.cpp) ---
    // Appends the DInsts of one PTX instruction (usually one).
    void decode_instruction(Frame& fr, int index);
    void decode_alu(Frame& fr, const ptx::Instruction& ins, DInst d);
    void decode_memory(Frame& fr, const ptx::Instruction& ins, DInst d, bool store);
    void decode_call(Frame& fr, const ptx::Instruction& ins, DInst d);
    // Control flow, warp collectives and the instructions that only name hints (decode_control.cpp).
    void decode_control(Frame& fr, const ptx::Instruction& ins, DInst d);
    void decode_unit(Frame& fr, const ptx::Instruction& ins, DInst d);

    void emit(const DInst& d) { out_.program.code.push_back(d); }
    int32_t pc() const { return static_cast<int32_t>(out_.program.code.size()); }

    const ptx::BoundKernel& k_;
    const KernelLayout& layout_;
    DecodedKernel out_;
    std::map<std::pair<int, int>, int> op_ids_;  // (function index, instruction index) -> op id
    std::map<const ptx::Function*, int> fn_index_;
    std::map<uint64_t, int32_t> constants_;
    std::map<std::string, int32_t> specials_;
    std::set<std::string> inlining_;  // the functions on the current inline path (no recursion)

    void emit_function(Frame& fr);
    int64_t allocate_local(int64_t bytes, int64_t align);
};

Round rounding(const ptx::Instruction& ins);

}  // namespace tmasim::model::kernel
