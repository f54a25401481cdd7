// wgmma codegen (scenarios/FORMAT.md "wgmma"): each accumulator is a float array per
// thread (its N/2 registers of the m64nN fragment), the operands are passed as shared-memory
// matrix descriptors built from the buffer's address, and acc_store writes each register to
// its (row, col) of D.
//
// Descriptors (PTX 9.7.15.5.1.2): the operand layouts are K-major, in the canonical form of
// the op's swizzle (model/copy/wgmma_layout.h has the element addresses):
//   32B / 64B / 128B: rows of S = 32 / 64 / 128 bytes; the slice at column k starts 2k bytes
//     into the first row (the swizzle is applied to the absolute address, and the buffer
//     starts on the pattern's repeat, so the base offset is 0); SBO = 8 rows = 8 S bytes;
//     LBO is unused for swizzled K-major layouts and set to 1 (16 bytes) as PTX assumes.
//   none: 8x8 core matrices of 128 bytes, row of core matrices after row; the slice at
//     column k starts at core matrix k/8; LBO = 128 (the next core matrix along K),
//     SBO = K/8 * 128 (the next 8 rows).
#include <set>
#include <utility>

#include <fmt/format.h>

#include "device/emit/kernel_writer.h"
#include "device/ptx_wrappers/ptx_wrappers.h"

namespace tmasim::device {

namespace {

struct Descriptor {
    int64_t start = 0;  // bytes from the buffer's first byte
    int64_t lbo = 0, sbo = 0;
    int layout = 0;     // bits 62-63: 0 none, 1 128B, 2 64B, 3 32B
};

Descriptor slice_descriptor(Swizzle swizzle, int64_t k_total, int64_t k) {
    Descriptor d;
    switch (swizzle) {
    case Swizzle::none:
        d.start = k / 8 * 128;
        d.lbo = 128;
        d.sbo = k_total / 8 * 128;
        d.layout = 0;
        return d;
    case Swizzle::b32: d.layout = 3; break;
    case Swizzle::b64: d.layout = 2; break;
    case Swizzle::b128: d.layout = 1; break;
    }
    d.start = 2 * k;
    d.lbo = 16;
    d.sbo = 8 * int64_t{swizzle_bytes(swizzle)};
    return d;
}

}  // namespace

int KernelWriter::accumulator_index(const Op& op) const {
    for (size_t i = 0; i < s_.accumulators.size(); ++i)
        if (s_.accumulators[i].name == op.acc) return static_cast<int>(i);
    fail(op, "acc names no accumulator");
}

void KernelWriter::emit_wgmma_wrappers() {
    std::set<std::pair<int, DType>> used;
    for (const Op* op : s_.all_ops()) {
        if (op->kind != OpKind::wgmma_mma_async) continue;
        const SharedBuffer* a = s_.find_shared(op->a.name);
        if (!a) fail(*op, "a names no shared buffer");
        used.insert({s_.accumulators.at(accumulator_index(*op)).n, a->type});
    }
    if (used.empty()) return;
    line("// ---- the wgmma.mma_async forms this kernel uses (sm_90a) ---------------------------");
    for (const auto& [n, type] : used) out_ += wgmma_mma_wrapper_source(n, type);
}

void KernelWriter::emit_wgmma_registers() {
    if (s_.accumulators.empty()) return;
    line("// wgmma accumulators: this thread's registers of each m64nN f32 fragment, zeroed");
    line("// (the model reads never-written registers as 0).");
    for (size_t i = 0; i < s_.accumulators.size(); ++i)
        line(fmt::format("float wgacc{0}[{1}] = {{}}; (void)wgacc{0};", i, s_.accumulators[i].n / 2));
}

void KernelWriter::emit_wgmma_pins(int acc) {
    const int regs = s_.accumulators.at(acc).n / 2;
    line("#pragma unroll");
    line(fmt::format("for (int r_ = 0; r_ < {}; ++r_) wgmma_pin_register(wgacc{}[r_]);", regs, acc));
}

void KernelWriter::emit_wgmma(const Op& op) {
    switch (op.kind) {
    case OpKind::wgmma_fence:
        // Every accumulator write the scenario made so far happens before the fence.
        for (size_t i = 0; i < s_.accumulators.size(); ++i) emit_wgmma_pins(static_cast<int>(i));
        line("wgmma_fence_sync_aligned();");
        return;
    case OpKind::wgmma_commit_group:
        line("wgmma_commit_group_sync_aligned();");
        return;
    case OpKind::wgmma_wait_group: {
        if (!op.n.is_constant()) fail(op, "n must be a constant (an immediate in PTX)");
        const int64_t n = op.n.eval_int({});
        if (n < 0 || n > 63) fail(op, "n must be in 0..63");
        line(fmt::format("wgmma_wait_group_sync_aligned<{}>();", n));
        // The retired mmas' results are read only after the wait.
        for (size_t i = 0; i < s_.accumulators.size(); ++i) emit_wgmma_pins(static_cast<int>(i));
        return;
    }
    case OpKind::wgmma_mma_async: emit_wgmma_mma(op); return;
    case OpKind::wgmma_acc_fill: {
        const int acc = accumulator_index(op);
        const std::string value = op.value.to_cxx(
            [&](const std::string&) -> std::string { fail(op, "value must be a constant"); }, true);
        line("#pragma unroll");
        line(fmt::format("for (int r_ = 0; r_ < {}; ++r_) wgacc{}[r_] = (float)({});",
                         s_.accumulators[acc].n / 2, acc, value));
        return;
    }
    case OpKind::wgmma_acc_store: {
        const int acc = accumulator_index(op);
        const int n = s_.accumulators[acc].n;
        const SharedBuffer* buf = s_.find_shared(op.buffer.name);
        if (!buf || buf->type != DType::f32 || buf->num_elements() != 64 * n)
            fail(op, fmt::format("buffer must be an f32 [64, {}] shared buffer", n));
        // PTX's m64nNk16 D fragment: register i of lane l in warp w of the warpgroup holds
        // row 16w + l/4 + 8((i/2)%2), column 8(i/4) + 2(l%4) + i%2.
        line(fmt::format("float* const d_ = (float*)(smem + {});", buffer_addr(op.buffer, op).offset));
        line("const int wg_warp = warp & 3;");
        line("#pragma unroll");
        open(fmt::format("for (int r_ = 0; r_ < {}; ++r_)", n / 2));
        line("const int row = 16 * wg_warp + (lane >> 2) + 8 * ((r_ >> 1) & 1);");
        line("const int col = 8 * (r_ >> 2) + 2 * (lane & 3) + (r_ & 1);");
        line(fmt::format("d_[row * {} + col] = wgacc{}[r_];", n, acc));
        close();
        return;
    }
    default: fail(op, "not a wgmma op");
    }
}

void KernelWriter::emit_wgmma_mma(const Op& op) {
    const int acc = accumulator_index(op);
    const int n = s_.accumulators[acc].n;
    const SharedBuffer* a = s_.find_shared(op.a.name);
    const SharedBuffer* b = s_.find_shared(op.b.name);
    if (!a || !b || a->shape.size() != 2) fail(op, "a and b must name [64, K] and [N, K] shared buffers");
    if (!op.k.is_constant() || !op.scale_d.is_constant()) fail(op, "k and scale_d must be constants");
    const int64_t k_total = a->shape[1];
    const Descriptor d = slice_descriptor(op.swizzle, k_total, op.k.eval_int({}));
    for (const auto& [name, ref] : {std::pair<const char*, const Ref*>{"desc_a", &op.a}, {"desc_b", &op.b}})
        line(fmt::format("const unsigned long long {} = make_wgmma_descriptor({} + {}u, {}u, {}u, {}u);", name,
                         buffer_addr(*ref, op).addr, d.start, d.lbo, d.sbo, d.layout));
    emit_wgmma_pins(acc);
    line(fmt::format("{}(wgacc{}, desc_a, desc_b, {});", wgmma_mma_wrapper_name(n, a->type), acc,
                     op.scale_d.eval_int({}) != 0 ? 1 : 0));
    emit_wgmma_pins(acc);
}

}  // namespace tmasim::device
