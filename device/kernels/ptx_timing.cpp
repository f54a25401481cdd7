#include "device/kernels/ptx_timing.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "ptx/instruction_kinds.h"

namespace tmasim::device {

namespace {

using PtxLines = std::vector<std::string>;

// Byte offset of a reader position (1-based line and byte column).
size_t text_offset_of(const std::string& text, ptx::TextPos pos) {
    size_t at = 0;
    for (int line = 1; line < pos.line; ++line) {
        at = text.find('\n', at);
        if (at == std::string::npos) throw std::runtime_error("timing rewrite: a position past the PTX text");
        ++at;
    }
    return at + static_cast<size_t>(std::max(1, pos.col) - 1);
}

// "@%p " / "@!%p " in front of every line, so that a guarded exit's reads run on its lanes only.
PtxLines predicated_lines(const PtxLines& lines, const std::string& pred) {
    if (pred.empty()) return lines;
    PtxLines out;
    for (const std::string& l : lines) out.push_back("@" + pred + " " + l);
    return out;
}

std::string guard_text_of(const ptx::Instruction& ins) {
    if (!ins.guard) return "";
    return (ins.guard->negated ? "!" : "") + ins.guard->name;
}

// %tms_d1 = this thread's region: thread = CTA (the model's order) * block + tid.x.
PtxLines timing_region_address(int64_t stride) {
    return {"mov.u32 %tms_r0, %clusterid.z;",       "mov.u32 %tms_r1, %nclusterid.y;",
            "mov.u32 %tms_r2, %clusterid.y;",       "mad.lo.u32 %tms_r0, %tms_r0, %tms_r1, %tms_r2;",
            "mov.u32 %tms_r1, %nclusterid.x;",      "mov.u32 %tms_r2, %clusterid.x;",
            "mad.lo.u32 %tms_r0, %tms_r0, %tms_r1, %tms_r2;",
            "mov.u32 %tms_r1, %cluster_nctarank;", "mov.u32 %tms_r2, %cluster_ctarank;",
            "mad.lo.u32 %tms_r0, %tms_r0, %tms_r1, %tms_r2;",
            "mov.u32 %tms_r1, %ntid.x;",           "mov.u32 %tms_r2, %tid.x;",
            "mad.lo.u32 %tms_r0, %tms_r0, %tms_r1, %tms_r2;",
            fmt::format("ld.global.u64 %tms_d1, [{}];", kTimingVariable),
            fmt::format("mad.wide.u32 %tms_d1, %tms_r0, {}, %tms_d1;", stride)};
}

bool level_times_ops(TraceLevel level) { return level != TraceLevel::none; }

PtxLines timing_entry_code(const TimingLayout& layout) {
    PtxLines l = {"mov.u64 %tms_d0, %globaltimer;"};
    if (level_times_ops(layout.level)) l.push_back("mov.u64 %tms_d2, %clock64;");
    for (const std::string& s : timing_region_address(layout.thread_bytes())) l.push_back(s);
    if (!level_times_ops(layout.level)) {
        l.push_back("st.global.u64 [%tms_d1], %tms_d0;");
        return l;
    }
    // The region's address stays in %tms_d3 and the record count in %tms_r7 for the whole kernel.
    l.insert(l.end(), {"st.global.v2.u64 [%tms_d1], {%tms_d0, %tms_d2};", "mov.u64 %tms_d3, %tms_d1;", "mov.u32 %tms_r7, 0;"});
    return l;
}

PtxLines timing_exit_code(const TimingLayout& layout, const std::string& pred) {
    PtxLines l = {"mov.u64 %tms_d0, %globaltimer;"};
    if (!level_times_ops(layout.level)) {
        // Nothing stays live through the kernel at level none: the address is computed again.
        for (const std::string& s : timing_region_address(layout.thread_bytes())) l.push_back(s);
        l.push_back("st.global.u64 [%tms_d1+16], %tms_d0;");
    } else {
        l.insert(l.end(), {"mov.u64 %tms_d2, %clock64;", "st.global.v2.u64 [%tms_d3+16], {%tms_d0, %tms_d2};",
                           "st.global.u32 [%tms_d3+32], %tms_r7;"});
    }
    return predicated_lines(l, pred);
}

// The record of one instance, after the instruction: its end clock (held for a wait), then the
// lowest executing lane stores {begin, end - begin, op} if its slots are not full.
PtxLines timing_op_after(const ptx::Instruction& ins, OpKind kind, int op, int64_t capacity, bool* held) {
    PtxLines l;
    *held = false;
    const bool probe = kind == OpKind::mbarrier_wait && !ins.operands.empty() &&
                       ins.operands[0].kind == ptx::Operand::Kind::reg;
    if (probe) {
        const std::string& r = ins.operands[0].name;
        l = {fmt::format("@{} mov.u64 %tms_d2, %clock64;", r), fmt::format("@!{} mov.u64 %tms_d2, %clock64;", r)};
        *held = true;
    } else if (kind == OpKind::sync || kind == OpKind::bar_sync) {
        l = {"activemask.b32 %tms_r0;", "bar.warp.sync %tms_r0;", "mov.u64 %tms_d2, %clock64;"};
        *held = true;
    } else {
        l = {"mov.u64 %tms_d2, %clock64;"};
    }
    const std::string g = guard_text_of(ins);
    l.push_back("activemask.b32 %tms_r0;");
    if (!g.empty()) l.push_back(fmt::format("vote.sync.ballot.b32 %tms_r0, {}, %tms_r0;", g));
    l.insert(l.end(), {"mov.u32 %tms_r1, %lanemask_lt;", "and.b32 %tms_r1, %tms_r1, %tms_r0;",
                       g.empty() ? std::string("setp.eq.u32 %tms_p0, %tms_r1, 0;")
                                 : fmt::format("setp.eq.and.u32 %tms_p0, %tms_r1, 0, {};", g),
                       fmt::format("setp.lt.and.u32 %tms_p1, %tms_r7, {}, %tms_p0;", capacity),
                       "@%tms_p1 mad.wide.u32 %tms_d1, %tms_r7, 16, %tms_d3;",
                       "@%tms_p1 mov.b64 {%tms_r2, %tms_r3}, %tms_d0;", "@%tms_p1 cvt.u32.u64 %tms_r4, %tms_d2;",
                       "@%tms_p1 sub.u32 %tms_r4, %tms_r4, %tms_r2;", fmt::format("@%tms_p1 mov.u32 %tms_r5, {};", op),
                       "@%tms_p1 st.global.v4.u32 [%tms_d1+64], {%tms_r2, %tms_r3, %tms_r4, %tms_r5};",
                       "@%tms_p0 add.u32 %tms_r7, %tms_r7, 1;"});
    return l;
}

// PtxLines inserted in front of an instruction ("...;\n\t", ending where it begins) and after one
// ("\n\t...;", before what follows it on its line, a comment say).
std::string lines_before(const PtxLines& l) {
    std::string t;
    for (const std::string& s : l) t += s + "\n\t";
    return t;
}
std::string lines_after(const PtxLines& l) {
    std::string t;
    for (const std::string& s : l) t += "\n\t" + s;
    return t;
}

bool ends_control_flow(const ptx::Instruction& ins) {
    if (ins.guard || ins.parts.empty()) return false;
    return ins.parts[0] == "ret" || ins.parts[0] == "exit" || ins.parts[0] == "bra";
}

void check_timing_names(const ptx::Module& m) {
    for (const ptx::Function& f : m.functions) {
        if (f.name == kTimingVariable) throw std::runtime_error(fmt::format("timing rewrite: the module has a function named {}", f.name));
        for (const ptx::Register& r : f.registers)
            if (r.name.rfind(kTimingRegisterPrefix, 0) == 0)
                throw std::runtime_error(fmt::format("timing rewrite: {} declares register {}, a name the rewrite uses ({}*)", f.name,
                                                     r.name, kTimingRegisterPrefix));
    }
    if (m.find_variable(kTimingVariable))
        throw std::runtime_error(fmt::format("timing rewrite: the module already declares {}", kTimingVariable));
}

}  // namespace

bool is_kernel_wait(OpKind k) {
    switch (k) {
        case OpKind::mbarrier_wait: case OpKind::sync: case OpKind::bar_sync: case OpKind::cp_async_wait_group:
        case OpKind::cp_async_wait_all: case OpKind::bulk_wait_group: case OpKind::bulk_wait_group_read:
        case OpKind::wgmma_wait_group: return true;
        default: return false;
    }
}

int64_t timing_records_per_thread(int64_t threads, TraceLevel level, int64_t per_thread, int64_t budget_bytes) {
    if (level == TraceLevel::none) return 0;
    int64_t n = (std::max<int64_t>(4, per_thread) + 3) / 4 * 4;
    const int64_t header = sizeof(ThreadTimingHeader), record = sizeof(TimingRecord);
    if (threads > 0 && threads * (header + n * record) > budget_bytes) n = (budget_bytes / threads - header) / record / 4 * 4;
    return std::max<int64_t>(4, n);
}

TimingRewrite rewrite_for_timing(const Scenario& s, const ptx::BoundKernel& k, const TimingLayout& layout) {
    const ptx::Module& m = k.module;
    const ptx::Function& entry = *k.entry;
    check_timing_names(m);
    if (level_times_ops(layout.level) && layout.records_per_thread < 4)
        throw std::logic_error("timing rewrite: records_per_thread below 4 at a level that times ops");
    TimingRewrite r;
    r.layout = layout;
    std::vector<ptx::TextEdit>& e = r.edits;
    int64_t statements = 0;
    auto add = [&](size_t at, const PtxLines& l, bool in_front) {
        e.push_back({at, in_front ? lines_before(l) : lines_after(l)});
        statements += static_cast<int64_t>(l.size());
    };

    const size_t fn_at = text_offset_of(m.text, entry.pos);
    if (fn_at >= m.text.size() || m.text[fn_at] != '.')
        throw std::runtime_error(fmt::format("timing rewrite: the entry {} does not begin where the reader placed it", entry.name));
    // .visible: cuModuleGetGlobal finds the variable by its name in the module's symbol table.
    e.push_back({fn_at, fmt::format("// tmasim timing: the buffer's address (device/kernels/ptx_timing.h)\n.visible .global .align 8 .u64 {};\n\n",
                                    kTimingVariable)});
    PtxLines decl = {".reg .b64 %tms_d<4>;", ".reg .b32 %tms_r<8>;", ".reg .pred %tms_p<2>;"};
    PtxLines head = timing_entry_code(layout);
    decl.insert(decl.end(), head.begin(), head.end());
    e.push_back({entry.body_begin, fmt::format("\n\t// tmasim timing at trace level {}: inserted reads of the timers (device/kernels/ptx_timing.h)",
                                               to_string(layout.level)) + lines_after(decl) + "\n"});
    statements += static_cast<int64_t>(decl.size()) + 1;

    int id = 0;
    for (const ptx::Instruction& ins : entry.instructions) {
        if (!ins.parts.empty() && (ins.parts[0] == "ret" || ins.parts[0] == "exit")) {
            add(ins.text_begin, timing_exit_code(layout, guard_text_of(ins)), true);
            ++r.exits;
        }
        const auto kind = ptx::unit_op_kind(ins);
        if (!kind) continue;
        const int op = id++;
        if (static_cast<size_t>(op) >= s.program.size() || s.program[static_cast<size_t>(op)].kind != *kind ||
            s.program[static_cast<size_t>(op)].loc.line != ins.pos.line)
            throw std::runtime_error(fmt::format("timing rewrite: op #{} of the scenario is not the PTX's unit instruction at line {} "
                                                 "({}); the scenario was bound to other PTX", op, ins.pos.line, ins.opcode));
        if (layout.level == TraceLevel::none || (layout.level == TraceLevel::waits && !is_kernel_wait(*kind))) continue;
        bool held = false;
        add(ins.text_begin, {"mov.u64 %tms_d0, %clock64;"}, true);
        add(ins.text_end, timing_op_after(ins, *kind, op, layout.records_per_thread, &held), false);
        r.timed_ops.push_back(op);
        r.held_waits += held ? 1 : 0;
    }
    // The ops of the functions the entry calls follow the entry's; they are not rewritten.
    for (size_t i = static_cast<size_t>(id); i < s.program.size() && level_times_ops(layout.level); ++i)
        if (layout.level == TraceLevel::all || is_kernel_wait(s.program[i].kind))
            throw std::runtime_error(fmt::format("timing rewrite: op {} is in a function the kernel calls; trace level {} times "
                                                 "the entry's instructions only (run it with --trace none)",
                                                 s.program[i].display(), to_string(layout.level)));
    const bool end_label = std::any_of(entry.labels.begin(), entry.labels.end(), [&](const ptx::Label& l) {
        return static_cast<size_t>(l.instruction) >= entry.instructions.size();
    });
    if (entry.instructions.empty() || !ends_control_flow(entry.instructions.back()) || end_label) {
        PtxLines l = timing_exit_code(layout, "");
        std::string t;
        for (const std::string& x : l) t += "\t" + x + "\n";
        e.push_back({entry.body_end, t});
        statements += static_cast<int64_t>(l.size());
        ++r.exits;
    }
    r.ptx = ptx::apply_edits(m.text, e);
    r.inserted_lines = statements + 1;  // the variable's declaration
    r.summary = fmt::format("entry and {} exit{}: %globaltimer{} per thread, one store each; ", r.exits, r.exits == 1 ? "" : "s",
                            level_times_ops(layout.level) ? " and %clock64" : "");
    if (level_times_ops(layout.level))
        r.summary += fmt::format("{} unit instruction{}: %clock64 before and after, a 16-byte record by the lowest executing lane "
                                 "(at most {} per thread){}; ", r.timed_ops.size(), r.timed_ops.size() == 1 ? "" : "s",
                                 layout.records_per_thread,
                                 r.held_waits ? fmt::format(", {} wait end{} held until the wait is over", r.held_waits,
                                                            r.held_waits == 1 ? "" : "s") : "");
    r.summary += fmt::format("{} PTX statements, registers %tms_d<4> %tms_r<8> %tms_p<2>, .visible .global .u64 {}", r.inserted_lines,
                             kTimingVariable);
    return r;
}

}  // namespace tmasim::device
