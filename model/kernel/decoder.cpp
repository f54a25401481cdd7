// The decoder's frame: functions inlined at their call sites, operands turned into slots,
// labels and returns resolved, reconvergence points computed. The opcodes themselves are
// decode_opcodes.cpp's.
#include "model/kernel/decoder.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "model/kernel/decoder_impl.h"
#include "model/kernel/simt_stack.h"
#include "ptx/instruction_kinds.h"
#include "scenarios/source_loc.h"

namespace tmasim::model::kernel {
namespace {

constexpr int kMaxInlineDepth = 32;
constexpr size_t kMaxDecodedInstructions = size_t(4) << 20;

}  // namespace

std::string instruction_place(const ptx::BoundKernel& k, const ptx::Function& f, const ptx::Instruction& ins) {
    const std::string src = ptx::source_of(k.module, f, ins);
    return fmt::format("{}:{}:{}{}", k.module.path, ins.pos.line, ins.pos.col, src.empty() ? "" : " (" + src + ")");
}

Decoder::Decoder(const ptx::BoundKernel& k, const KernelLayout& layout) : k_(k), layout_(layout) {
    int id = 0;
    for (size_t fi = 0; fi < k.functions.size(); ++fi) {
        fn_index_[k.functions[fi]] = static_cast<int>(fi);
        const auto& instrs = k.functions[fi]->instructions;
        for (size_t i = 0; i < instrs.size(); ++i)
            if (ptx::unit_op_kind(instrs[i])) op_ids_[{static_cast<int>(fi), static_cast<int>(i)}] = id++;
    }
}

void Decoder::unsupported(const Frame& fr, const ptx::Instruction& ins, const std::string& why) const {
    throw ScenarioError(SourceLoc{k_.module.path, ins.pos.line, ins.pos.col}, "kernel",
                        fmt::format("unsupported instruction `{}`{}: {}; the model runs what docs/kernels.md lists, and "
                                    "refuses the rest rather than approximate it",
                                    ins.opcode, [&] {
                                        const std::string src = ptx::source_of(k_.module, *fr.f, ins);
                                        return src.empty() ? std::string() : " (" + src + ")";
                                    }(),
                                    why));
}

int32_t Decoder::constant(uint64_t value) {
    auto it = constants_.find(value);
    if (it != constants_.end()) return it->second;
    const int32_t s = static_cast<int32_t>(out_.program.slots.size());
    out_.program.slots.push_back({SlotInit::Kind::constant, value, ""});
    constants_[value] = s;
    return s;
}

int32_t Decoder::special(const std::string& name) {
    auto it = specials_.find(name);
    if (it != specials_.end()) return it->second;
    const int32_t s = static_cast<int32_t>(out_.program.slots.size());
    out_.program.slots.push_back({SlotInit::Kind::special, 0, name});
    specials_[name] = s;
    return s;
}

int32_t Decoder::scratch() {
    const int32_t s = static_cast<int32_t>(out_.program.slots.size());
    out_.program.slots.push_back({});
    return s;
}

int64_t Decoder::allocate_local(int64_t bytes, int64_t align) {
    int64_t& top = out_.program.local_bytes;
    const int64_t a = std::max<int64_t>(1, align);
    top = (top + a - 1) / a * a;
    const int64_t at = top;
    top += std::max<int64_t>(bytes, 1);
    return at;
}

int32_t Decoder::reg_slot(const Frame& fr, const ptx::Instruction& ins, const ptx::Operand& o) const {
    if (o.reg < 0 || o.reg >= static_cast<int>(fr.f->registers.size()))
        unsupported(fr, ins, fmt::format("register {} does not resolve", o.name));
    if (fr.f->registers[o.reg].vector != 0) unsupported(fr, ins, fmt::format("vector register {}", o.name));
    return fr.reg_base + o.reg;
}

uint64_t Decoder::symbol_address(Frame& fr, const ptx::Instruction& ins, const ptx::Operand& o, int& space) {
    if (o.variable >= 0) {
        const ptx::Variable& v = fr.f->variables.at(static_cast<size_t>(o.variable));
        if (v.space == ptx::Space::shared) {
            space = static_cast<int>(ptx::Space::shared);
            return static_cast<uint64_t>(layout_.shared_offsets.at(v.name));
        }
        if (v.space == ptx::Space::local || v.space == ptx::Space::param) {
            auto it = fr.local_of_variable.find(o.variable);
            if (it == fr.local_of_variable.end())
                it = fr.local_of_variable.emplace(o.variable, allocate_local(v.size_bytes(), v.alignment())).first;
            space = static_cast<int>(v.space);
            // A body's .param variable (a call's argument or return) lives in the thread's local
            // bytes; in the param space it is addressed above the kernel's param buffer.
            return static_cast<uint64_t>(it->second) + (v.space == ptx::Space::param ? kBodyParamBase : 0);
        }
        unsupported(fr, ins, fmt::format("a {} variable declared in a function body ({})", v.type, v.name));
    }
    if (o.label >= 0) unsupported(fr, ins, fmt::format("label {} used as a value", o.name));
    if (const ptx::Param* p = fr.f->find_param(o.name)) {
        space = static_cast<int>(ptx::Space::param);
        if (fr.f == k_.entry) return static_cast<uint64_t>(p->offset);
        auto it = fr.local_of_param.find(p->name);
        if (it == fr.local_of_param.end()) unsupported(fr, ins, fmt::format("param {} has no argument at this call", o.name));
        return static_cast<uint64_t>(it->second) + kBodyParamBase;
    }
    for (const ptx::Param& r : fr.f->returns)
        if (r.name == o.name) {
            space = static_cast<int>(ptx::Space::param);
            auto it = fr.local_of_param.find(r.name);
            if (it == fr.local_of_param.end()) unsupported(fr, ins, fmt::format("return {} has no place at this call", o.name));
            return static_cast<uint64_t>(it->second) + kBodyParamBase;
        }
    if (const ptx::Variable* v = k_.module.find_variable(o.name)) {
        if (v->space == ptx::Space::shared) {
            space = static_cast<int>(ptx::Space::shared);
            return static_cast<uint64_t>(layout_.shared_offsets.at(v->name));
        }
        for (const ModuleGlobal& g : layout_.module_globals)
            if (g.name == v->name) {
                space = static_cast<int>(v->space);
                return g.address;
            }
        unsupported(fr, ins, fmt::format("module variable {} in the {} space", o.name, v->type));
    }
    unsupported(fr, ins, fmt::format("symbol {} is no variable, param or label the model knows", o.name));
}

int32_t Decoder::value(Frame& fr, const ptx::Instruction& ins, const ptx::Operand& o, Ty type) {
    using K = ptx::Operand::Kind;
    switch (o.kind) {
        case K::reg: {
            const int32_t s = reg_slot(fr, ins, o);
            if (!o.negated) return s;
            DInst n;
            n.op = Opc::not_;
            n.type = Ty::pred;
            n.ndst = n.nsrc = 1;
            n.dst[0] = scratch();
            n.src[0] = s;
            n.fn = fr.fn;
            emit(n);
            return n.dst[0];
        }
        case K::special: return special(o.name);
        case K::imm_int: return constant(o.bits);
        case K::imm_f32: {
            if (type == Ty::f64) {
                float f;
                const uint32_t b = static_cast<uint32_t>(o.bits);
                std::memcpy(&f, &b, 4);
                const double d = f;
                uint64_t bits;
                std::memcpy(&bits, &d, 8);
                return constant(bits);
            }
            return constant(o.bits & 0xffffffffull);
        }
        case K::imm_f64: {
            if (type == Ty::f32) {
                double d;
                std::memcpy(&d, &o.bits, 8);
                const float f = static_cast<float>(d);
                uint32_t b;
                std::memcpy(&b, &f, 4);
                return constant(b);
            }
            return constant(o.bits);
        }
        case K::symbol: {
            int space = 0;
            return constant(symbol_address(fr, ins, o, space));
        }
        default: unsupported(fr, ins, "an operand that is not a value here");
    }
}

int32_t Decoder::dest(Frame& fr, const ptx::Instruction& ins, const ptx::Operand& o) {
    if (o.kind == ptx::Operand::Kind::sink) return scratch();
    if (o.kind != ptx::Operand::Kind::reg) unsupported(fr, ins, "a destination that is not a register");
    return reg_slot(fr, ins, o);
}

UnitOperand Decoder::unit_operand(Frame& fr, const ptx::Instruction& ins, const ptx::Operand& o) {
    using K = ptx::Operand::Kind;
    UnitOperand u;
    if (o.kind == K::sink) {
        u.kind = UnitOperand::Kind::sink;
        u.slot = scratch();
    } else if (o.kind == K::address) {
        u.kind = UnitOperand::Kind::address;
        u.offset = o.offset;
        if (!o.base.empty()) {
            const ptx::Operand& b = o.base.front();
            if (b.kind == K::symbol) {
                int space = 0;
                u.slot = constant(symbol_address(fr, ins, b, space));
            } else {
                u.slot = value(fr, ins, b, Ty::u64);
            }
        }
        for (const ptx::Operand& c : o.coords) u.elems.push_back(value(fr, ins, c, Ty::b32));
    } else if (o.kind == K::vector) {
        u.kind = UnitOperand::Kind::vector;
        for (const ptx::Operand& e : o.elems)
            u.elems.push_back(e.kind == K::sink ? scratch() : e.kind == K::reg ? reg_slot(fr, ins, e) : value(fr, ins, e, Ty::b32));
    } else if (o.kind == K::pred_pair) {
        u.kind = UnitOperand::Kind::vector;
        for (const ptx::Operand& e : o.elems) u.elems.push_back(dest(fr, ins, e));
    } else {
        u.slot = o.kind == K::reg ? reg_slot(fr, ins, o) : value(fr, ins, o, instruction_type(ins));
    }
    return u;
}

void Decoder::emit_function(Frame& fr) {
    if (fr.depth > kMaxInlineDepth)
        throw ScenarioError(SourceLoc{k_.module.path, fr.f->pos.line, fr.f->pos.col}, "kernel",
                            fmt::format("calls nest more than {} deep at {}", kMaxInlineDepth, fr.f->name));
    fr.reg_base = static_cast<int32_t>(out_.program.slots.size());
    out_.program.slots.resize(out_.program.slots.size() + fr.f->registers.size());
    const auto& instrs = fr.f->instructions;
    fr.pc_of_ins.assign(instrs.size() + 1, -1);
    for (size_t i = 0; i < instrs.size(); ++i) {
        fr.pc_of_ins[i] = pc();
        decode_instruction(fr, static_cast<int>(i));
        if (out_.program.code.size() > kMaxDecodedInstructions)
            throw ScenarioError(SourceLoc{k_.module.path, instrs[i].pos.line, instrs[i].pos.col}, "kernel",
                                fmt::format("the kernel decodes to more than {} instructions (calls inlined)", kMaxDecodedInstructions));
    }
    fr.pc_of_ins[instrs.size()] = pc();
    // Falling off the end of a function returns, as `ret` does.
    DInst end;
    end.op = fr.f == k_.entry ? Opc::exit : Opc::ret_inline;
    end.fn = fr.fn;
    end.ins = static_cast<int32_t>(instrs.size()) - 1;
    if (fr.f != k_.entry) fr.return_fixups.push_back(out_.program.code.size());
    emit(end);
    for (const auto& [at, label] : fr.label_fixups) {
        const ptx::Label& l = fr.f->labels.at(static_cast<size_t>(label));
        out_.program.code[at].target = fr.pc_of_ins.at(static_cast<size_t>(l.instruction));
    }
}

DecodedKernel Decoder::run() {
    Frame entry;
    entry.fn = 0;
    entry.f = k_.entry;
    inlining_.insert(k_.entry->name);
    out_.program.start = 0;
    emit_function(entry);
    compute_reconvergence(out_.program);
    return std::move(out_);
}

DecodedKernel decode_kernel(const ptx::BoundKernel& k, const KernelLayout& layout) {
    Decoder d(k, layout);
    return d.run();
}

}  // namespace tmasim::model::kernel
