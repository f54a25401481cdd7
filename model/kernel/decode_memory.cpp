// Memory instructions: ld/st of the spaces only the warp sees (local, param, const) run in the
// warp; everything the units see (shared, shared::cluster, global, generic, and every async,
// barrier, fence and wgmma instruction) becomes a unit DInst whose operands are kept as
// UnitOperands for its family's handler (model/kernel/unit_*.cpp).
#include <fmt/format.h>

#include "model/kernel/decoder_impl.h"
#include "ptx/instruction_kinds.h"

namespace tmasim::model::kernel {
namespace {

int vector_count(const ptx::Instruction& ins) {
    if (ins.has("v2")) return 2;
    if (ins.has("v4")) return 4;
    if (ins.has("v8")) return 8;
    return 1;
}

}  // namespace

void Decoder::decode_memory(Frame& fr, const ptx::Instruction& ins, DInst d, bool store) {
    const std::string space = ptx::memory_space(ins);
    if (space != "local" && space != "param" && space != "const")
        unsupported(fr, ins, "a memory access the decoder did not route to the units");
    const auto& ops = ins.operands;
    if (ops.size() != 2) unsupported(fr, ins, "ld/st take two operands");
    const ptx::Operand& addr = store ? ops[0] : ops[1];
    const ptx::Operand& data = store ? ops[1] : ops[0];
    if (addr.kind != ptx::Operand::Kind::address) unsupported(fr, ins, "an address operand [..]");
    d.op = store ? Opc::st_private : Opc::ld_private;
    d.space = static_cast<uint8_t>(space == "local" ? PrivateSpace::local : space == "param" ? PrivateSpace::param
                                                                                             : PrivateSpace::const_);
    const int bits = ty_bits(d.type);
    if (bits < 8 || bits > 64) unsupported(fr, ins, "an access type of 8 to 64 bits");
    d.width = static_cast<uint8_t>(bits / 8);
    d.vec = static_cast<uint8_t>(vector_count(ins));
    const UnitOperand a = unit_operand(fr, ins, addr);
    d.src[0] = a.slot >= 0 ? a.slot : constant(0);
    d.nsrc = 1;
    d.imm = a.offset;
    std::vector<int32_t> slots;
    if (data.kind == ptx::Operand::Kind::vector) {
        if (static_cast<int>(data.elems.size()) != d.vec) unsupported(fr, ins, "a vector whose size is not the .vN");
        for (const ptx::Operand& e : data.elems) slots.push_back(store ? value(fr, ins, e, d.type) : dest(fr, ins, e));
    } else {
        if (d.vec != 1) unsupported(fr, ins, "a .vN access of a scalar");
        slots.push_back(store ? value(fr, ins, data, d.type) : dest(fr, ins, data));
    }
    d.extra = static_cast<int32_t>(out_.program.lists.size());
    out_.program.lists.push_back(std::move(slots));
    emit(d);
}

void Decoder::decode_unit(Frame& fr, const ptx::Instruction& ins, DInst d) {
    d.op = Opc::unit;
    auto it = op_ids_.find({fr.fn, d.ins});
    if (it == op_ids_.end()) unsupported(fr, ins, "an instruction the kernel's op list does not hold");
    d.op_id = it->second;
    UnitInstruction u;
    u.ins = &ins;
    u.fn = fr.f;
    for (const ptx::Operand& o : ins.operands) u.operands.push_back(unit_operand(fr, ins, o));
    d.extra = static_cast<int32_t>(out_.units.size());
    out_.units.push_back(std::move(u));
    emit(d);
}

}  // namespace tmasim::model::kernel
