#pragma once
// What every module the reader returns must satisfy, whatever the text: spans that hold the
// instruction, positions that match the spans, references that resolve to declarations in
// scope. The fixture tests check it on real PTX, the fuzz target on whatever parses.
#include <algorithm>
#include <string>
#include <vector>

#include "ptx/module.h"

namespace tmasim::ptx::test {

namespace invariants_detail {

inline bool encloses(const Function& f, int outer, int inner) {
    for (int s = inner; s >= 0; s = f.blocks[size_t(s)].parent)
        if (s == outer) return true;
    return false;
}

// Line:col of a byte offset, from the offsets where lines start.
inline TextPos pos_at(const std::vector<size_t>& line_starts, size_t offset) {
    size_t line = size_t(std::upper_bound(line_starts.begin(), line_starts.end(), offset) - line_starts.begin());
    return TextPos{int(line), int(offset - line_starts[line - 1]) + 1};
}

inline std::string check_operand(const Module& m, const Function& f, const Instruction& ins, const Operand& op) {
    using K = Operand::Kind;
    if (op.kind == K::reg) {
        if (op.reg < 0 || size_t(op.reg) >= f.registers.size()) return "a register index out of range";
        const Register& r = f.registers[size_t(op.reg)];
        if (op.name != r.name && op.name.compare(0, r.name.size() + 1, r.name + ".") != 0) return "operand " + op.name + " resolved to " + r.name;
        if (!encloses(f, r.scope, ins.scope)) return op.name + " resolved to a register of a block that does not enclose it";
    }
    if (op.kind == K::symbol && op.label >= 0) {
        if (size_t(op.label) >= f.labels.size()) return "a label index out of range";
        const Label& l = f.labels[size_t(op.label)];
        if (l.name != op.name || !encloses(f, l.scope, ins.scope)) return op.name + " resolved to a label not in scope";
    }
    if (op.kind == K::symbol && op.label < 0 && op.variable < 0 && !m.find_variable(op.name) && !m.find_function(op.name) &&
        !f.find_param(op.name) && op.name != "WARP_SZ") {
        bool is_return = false;
        for (const Param& p : f.returns) is_return |= p.name == op.name;
        if (!is_return) return "symbol " + op.name + " resolves to nothing";
    }
    if (op.kind == K::symbol && op.variable >= 0) {
        if (size_t(op.variable) >= f.variables.size()) return "a variable index out of range";
        const Variable& v = f.variables[size_t(op.variable)];
        if (v.name != op.name || !encloses(f, v.scope, ins.scope)) return op.name + " resolved to a variable not in scope";
    }
    if (op.kind == K::pred_pair && op.elems.size() != 2) return "a pred_pair without two entries";
    if (op.kind == K::address && op.base.size() > 1) return "an address with more than one base";
    return "";
}

}  // namespace invariants_detail

// "" when the module holds together, else the first thing that does not.
inline std::string check_invariants(const Module& m) {
    using namespace invariants_detail;
    std::vector<size_t> line_starts{0};
    for (size_t i = 0; i < m.text.size(); ++i)
        if (m.text[i] == '\n') line_starts.push_back(i + 1);
    for (const Function& f : m.functions) {
        if (!f.has_body) {
            if (!f.instructions.empty() || !f.blocks.empty()) return f.name + ": a prototype with a body";
            continue;
        }
        if (f.blocks.empty() || f.blocks[0].parent != -1) return f.name + ": no body block";
        if (f.body_begin == 0 || f.body_begin > f.body_end || f.body_end >= m.text.size() || m.text[f.body_begin - 1] != '{' ||
            m.text[f.body_end] != '}')
            return f.name + ": the body span is not its braces";
        for (size_t b = 1; b < f.blocks.size(); ++b) {
            const Block& blk = f.blocks[b];
            if (blk.parent < 0 || size_t(blk.parent) >= b) return f.name + ": a block's parent is not before it";
            const Block& parent = f.blocks[size_t(blk.parent)];
            if (blk.first_instruction < parent.first_instruction || blk.end_instruction > parent.end_instruction ||
                blk.first_instruction > blk.end_instruction)
                return f.name + ": a block's instructions are not inside its parent's";
        }
        int64_t offset = 0;
        for (const Param& p : f.params) {
            if (p.align <= 0 || p.offset % p.align != 0 || p.offset < offset) return f.name + ": param " + p.name + " misplaced";
            offset = p.offset + p.size_bytes;
        }
        for (const Label& l : f.labels)
            if (l.instruction < 0 || size_t(l.instruction) > f.instructions.size() || l.scope < 0 || size_t(l.scope) >= f.blocks.size())
                return f.name + ": label " + l.name + " out of range";
        size_t previous_end = f.body_begin;
        for (const Instruction& ins : f.instructions) {
            if (ins.text_begin < previous_end || ins.text_end <= ins.text_begin || ins.text_end > f.body_end ||
                m.text[ins.text_end - 1] != ';')
                return f.name + ": an instruction span out of order or without its ';'";
            previous_end = ins.text_end;
            TextPos p = pos_at(line_starts, ins.text_begin);
            if (p.line != ins.pos.line || p.col != ins.pos.col) return f.name + ": an instruction's position is not its span's";
            std::string head = m.text.substr(ins.text_begin, ins.opcode.size());
            if (!ins.guard && head != ins.opcode) return f.name + ": the span does not start with the opcode";
            if (ins.guard && m.text[ins.text_begin] != '@') return f.name + ": a guarded span does not start with '@'";
            if (ins.scope < 0 || size_t(ins.scope) >= f.blocks.size()) return f.name + ": an instruction's block out of range";
            if (ins.loc >= int(f.locs.size()) || (ins.loc >= 0 && f.locs[size_t(ins.loc)].empty())) return f.name + ": a loc out of range";
            std::string parts;
            for (const std::string& part : ins.parts) parts += (parts.empty() ? "" : ".") + part;
            if (parts != ins.opcode) return f.name + ": the parts are not the opcode";
            if (ins.guard) {
                std::string why = check_operand(m, f, ins, *ins.guard);
                if (!why.empty()) return f.name + ": guard: " + why;
            }
            for (const Operand& op : ins.operands) {
                std::string why = check_operand(m, f, ins, op);
                if (!why.empty()) return f.name + ": " + why;
                for (const auto* list : {&op.elems, &op.base, &op.coords})
                    for (const Operand& e : *list) {
                        why = check_operand(m, f, ins, e);
                        if (!why.empty()) return f.name + ": " + why;
                    }
            }
        }
    }
    for (const Section& s : m.sections)
        if (s.text_begin == 0 || s.text_end < s.text_begin || s.text_end >= m.text.size() || m.text[s.text_begin - 1] != '{' ||
            m.text[s.text_end] != '}')
            return "section " + s.name + ": its span is not its braces";
    return "";
}

}  // namespace tmasim::ptx::test
