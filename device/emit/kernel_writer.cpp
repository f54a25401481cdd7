#include "device/emit/kernel_writer.h"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "device/emit/codegen.h"
#include "device/emit/kernel_abi.h"

namespace tmasim::device {

KernelWriter::KernelWriter(const Scenario& s, TraceLevel level, TraceWordsIn words_in, SharedDump dump)
    : s_(s), level_(level), words_in_(words_in), dump_(dump), plan_(plan_trace(s, level)), layout_(compute_shared_layout(s)), snapshots_(plan_snapshots(s)) {}

void KernelWriter::line(const std::string& text) {
    out_.append(static_cast<size_t>(indent_) * 4, ' ');
    out_ += text;
    out_ += '\n';
}

void KernelWriter::open(const std::string& text) {
    line(text.empty() ? "{" : text + " {");
    ++indent_;
}

void KernelWriter::close(const std::string& tail) {
    --indent_;
    line("}" + tail);
}

void KernelWriter::fail(const Op& op, const std::string& what) const {
    throw CodegenError("device codegen: " + op.display() + ": " + what);
}

std::string KernelWriter::kernel() {
    out_.clear();
    emit_wgmma_wrappers();
    emit_params();
    ++indent_;
    emit_prologue();
    emit_ops(s_.program);
    emit_epilogue();
    close();
    return out_;
}

void KernelWriter::emit_params() {
    line(fmt::format("extern \"C\" __global__ void __launch_bounds__({}) {}(",
                     s_.launch.block, kKernelName));
    for (size_t i = 0; i < s_.tensormaps.size(); ++i)
        line(fmt::format("    const __grid_constant__ TensorMapParam tmap{},", i));
    // A map in global memory: the object TMA ops read (tmap<i> is then the template).
    for (size_t i = 0; i < s_.tensormaps.size(); ++i)
        if (s_.tensormaps[i].location == MapLocation::global)
            line(fmt::format("    TensorMapParam* const gmap{},", i));
    for (size_t i = 0; i < s_.globals.size(); ++i)
        line(fmt::format("    unsigned char* const global{},", i));
    line("    unsigned* const trace_buf, const unsigned trace_capacity,");
    line("    DeviceStatus* const status, unsigned char* const shared_dump,");
    line("    unsigned char* const snapshot_area, const unsigned long long watchdog_ns)");
    line("{");
}

void KernelWriter::emit_prologue() {
    const int block = s_.launch.block;
    line("const unsigned long long entry_clock = read_clock64();");
    line("const unsigned long long entry_ns = read_globaltimer();");
    line("// Dynamic shared memory is only guaranteed 16-byte alignment: align the base up to");
    line("// 1024 (the host allocates 1024 extra bytes), as TMA swizzle patterns assume.");
    line("extern __shared__ unsigned char dyn_smem[];");
    line("const unsigned smem_raw = cvta_to_shared_u32(dyn_smem);");
    line("const unsigned smem_base = (smem_raw + 1023u) & ~1023u;");
    line("unsigned char* const smem = dyn_smem + (smem_base - smem_raw);");
    line("const int tid = (int)threadIdx.x;");
    line("const int warp = tid >> 5;");
    line("const int lane = tid & 31;");
    line("const long long cta_rank = (long long)blockIdx.x;");
    line("const long long cluster_rank = (long long)read_cluster_ctarank();  // `rank`");
    if (uses_cluster_barrier())
        line("bool cluster_arrived = false;  // a barrier.cluster.arrive not yet waited on");
    line(fmt::format("const int warp_lanes = min(32, {} - warp * 32);", block));
    line("const unsigned warp_mask = warp_lanes == 32 ? 0xffffffffu : ((1u << warp_lanes) - 1u);");
    line("// One election per warp while the warp is converged; `elected` ops reuse it.");
    line("unsigned leader_lane = 0;");
    line("const bool is_leader = elect_sync(warp_mask, leader_lane);");
    line(fmt::format("// Trace level `{}`.", to_string(level_)));
    line("// This warp's region of the trace buffer: its header, then its clock words.");
    line("const unsigned trace_padded = (trace_capacity + 3u) & ~3u;");
    line(fmt::format("WarpTraceHeader* const trace_hdr = reinterpret_cast<WarpTraceHeader*>(trace_buf + "
                     "((unsigned long long)blockIdx.x * {} + warp) * ({}ull + trace_padded));",
                     s_.launch.num_warps(), kTraceHeaderWords));
    line("unsigned* const tw_region = reinterpret_cast<unsigned*>(trace_hdr + 1);");
    if (words_in_ == TraceWordsIn::shared) {
        line("// The words stay in shared memory, after the scenario's buffers, until the warp exits.");
        line(fmt::format("const unsigned tw_first = smem_base + {}u + (unsigned)warp * trace_padded * 4u;",
                         (layout_.total_bytes + 15) / 16 * 16));
        line("unsigned tw = tw_first;  // where the current segment's words go (a shared address)");
    } else {
        line("unsigned* const tw_first = tw_region;");
        line("unsigned* tw = tw_first;  // where the current segment's words go");
    }
    line(fmt::format("long long it[{}] = {{0, 0, 0, 0}};  // enclosing loop indices", kMaxLoopDepth));
    line(fmt::format("// Clock words not stored yet (registers: every index is a constant), at most {}.", kMaxPendingWords));
    line(fmt::format("unsigned tbuf[{}];", kMaxPendingWords));
    line("// Every value a shared.load/global.load reads is folded into this register, which the");
    line("// epilogue stores under a condition the compiler cannot rule out: no load is dead.");
    line("unsigned load_sink = 0u;");
    line("(void)warp_mask; (void)smem; (void)leader_lane; (void)is_leader; (void)watchdog_ns; (void)cta_rank;");
    line("(void)cluster_rank; (void)snapshot_area;");
    emit_wgmma_registers();
    emit_layout_registers();
    emit_snapshot_counters();
    line("// Where the first timed op begins (trace_plan.h: an op that follows a timed op begins at its end).");
    line("const unsigned long long start_clock = read_clock64();");
    line("// What a wait's retry loop and hang report need (kernel_abi.cpp WaitHangContext): in the");
    line("// thread's local memory, filled by the first wait that blocks (emit_wait), not here.");
    line("WaitHangContext hang_ctx;");
    line("bool hang_ctx_filled = false;");
    line("(void)hang_ctx; (void)hang_ctx_filled;");
}

// The context's kernel constants, written by the first wait of the thread that blocks. Written
// at the kernel's entry, their ~15 local-memory stores per thread queued behind each other on
// the SM: with 12 warps, the first op of warp 0 ended 1200 cycles after it began and the first
// CTA sync completed ~2000 cycles after entry, against ~500 with 2 warps (traces/recorded/
// NVIDIA-H200: mbarrier_wake, warpspec/*; warps_shared_access, whose kernel has no wait and so
// no context, synced 16 warps in 685).
std::string KernelWriter::hang_context_fill() const {
    return fmt::format("if (!hang_ctx_filled) {{ hang_ctx = WaitHangContext{{watchdog_ns, entry_clock, entry_ns, start_clock, "
                       "trace_hdr, status, leader_lane, {}, tw_region, 0, 0, 0, 0, 0u, {{0, 0, 0, 0}}}}; "
                       "hang_ctx_filled = true; }}",
                       level_ != TraceLevel::none && words_in_ == TraceWordsIn::shared ? "tw_first" : "0u");
}

void KernelWriter::emit_loop(const Op& op) {
    const size_t depth = loop_vars_.size();
    if (depth >= static_cast<size_t>(kMaxLoopDepth))
        fail(op, fmt::format("loops nest deeper than {} levels", kMaxLoopDepth));
    if (unrolls(op)) return emit_unrolled_loop(op);
    const std::string count = int_expr(op.loop_count, op, "count");
    line(fmt::format("// op {}: loop", op.id));
    // The loop body's words start at offset 0 from the pointer: advance it past what came before.
    advance_trace_words();
    open("");
    // A constant count that fits an int gets an int counter, as a hand-written loop has: its
    // index arithmetic (t % 4, (t + 4) * 64) then stays 32-bit.
    const bool small = op.loop_count.is_constant() && op.loop_count.eval_int({}) <= INT32_MAX;
    const char* type = small ? "int" : "long long";
    line(fmt::format("const {} n{} = {};", type, depth, count));
    open(fmt::format("for ({1} L{0} = 0; L{0} < n{0}; ++L{0})", depth, type));
    line(fmt::format("it[{0}] = L{0};", depth));
    loop_vars_.push_back(op.var);
    loop_counts_.push_back(op.loop_count);
    loop_values_.push_back(std::nullopt);
    emit_ops(op.body);
    advance_trace_words();
    loop_vars_.pop_back();
    loop_counts_.pop_back();
    loop_values_.pop_back();
    close();
    close();
}

bool KernelWriter::unrolls(const Op& loop) const {
    if (!loop.loop_count.is_constant()) return false;
    const int64_t n = loop.loop_count.eval_int({});
    if (n < 0 || n > kMaxUnrolledCount) return false;
    for (const Op& op : loop.body)
        if (op.kind == OpKind::loop) return false;
    return n * static_cast<int64_t>(loop.body.size()) <= kMaxUnrolledOps;
}

// A short loop of constant count over straight-line ops is written out, as `#pragma unroll`
// has the compiler do in a hand-written kernel: its clock words then join the surrounding
// ones and are stored together.
void KernelWriter::emit_unrolled_loop(const Op& op) {
    const size_t depth = loop_vars_.size();
    const int64_t n = op.loop_count.eval_int({});
    line(fmt::format("// op {}: loop, {} iterations written out", op.id, n));
    loop_vars_.push_back(op.var);
    loop_counts_.push_back(op.loop_count);
    loop_values_.push_back(0);
    for (int64_t i = 0; i < n; ++i) {
        loop_values_.back() = i;
        open("");
        line(fmt::format("it[{}] = {};", depth, i));
        emit_ops(op.body);
        close();
    }
    loop_vars_.pop_back();
    loop_counts_.pop_back();
    loop_values_.pop_back();
}

void KernelWriter::emit_epilogue() {
    const SharedDumpPlan plan = plan_shared_dump(s_);
    // The marker the sanitizer's line map ends the last op at (sanitizer_ops.cpp).
    line("// Every op done: the warp's exit record (and, where the run asks for it, the shared dump).");
    line("if (load_sink == 0x9e3779b9u && watchdog_ns == 0ull) status->trace_unused = load_sink;");
    line("// The warp's exit: with its entry, the clock-to-ns rate of its words.");
    line("const unsigned long long exit_clock = read_clock64();");
    line("const unsigned long long exit_ns = read_globaltimer();");
    store_pending_words(WordStorers::elected_lane);  // lanes that hung have exited
    line(fmt::format("const unsigned trace_words = (unsigned)(tw - tw_first){} + {}u;",
                     words_in_ == TraceWordsIn::shared ? " / 4u" : "", segment_));
    line("if (lane == 0) trace_exit(trace_hdr, entry_clock, entry_ns, start_clock, exit_clock, exit_ns, trace_words, "
         "leader_lane);");
    if (words_in_ == TraceWordsIn::shared)
        line("trace_copy_words(tw_region, tw_first, trace_words, __activemask());");
    emit_cluster_epilogue();
    if (plan.bytes_per_cta == 0 || dump_ == SharedDump::skip) return;
    line("// The final shared buffers to the host (skipped after a hang; threads that timed out");
    line("// have exited, which barrier.sync does not wait for).");
    line("barrier_sync_aligned_0();");
    open("if (ld_volatile_global_s32(&status->hang_flag) == 0)");
    line(fmt::format("unsigned char* const dump = shared_dump + (unsigned long long)blockIdx.x * {}ull;",
                     plan.bytes_per_cta));
    // 16 bytes at a time where both sides allow it: a byte loop over a 64 KiB stage area
    // took longer than some of the kernels it follows.
    for (const SharedDumpEntry& e : plan.entries) {
        if (plan.bytes_per_cta % 16 == 0 && e.size % 16 == 0 && e.dump_offset % 16 == 0 && e.smem_offset % 16 == 0)
            line(fmt::format("for (int i = tid; i < {}; i += {}) reinterpret_cast<uint4*>(dump + {})[i] = "
                             "reinterpret_cast<const uint4*>(smem + {})[i];",
                             e.size / 16, s_.launch.block, e.dump_offset, e.smem_offset));
        else
            line(fmt::format("for (int i = tid; i < {}; i += {}) dump[{} + i] = smem[{} + i];", e.size,
                             s_.launch.block, e.dump_offset, e.smem_offset));
    }
    close();
}

KernelWriter::Threads KernelWriter::threads_of(const Op& op) const {
    const int block = s_.launch.block;
    const int n = op.by.n;
    Threads t;
    switch (op.by.kind) {
    case Selector::Kind::all:
        t = {"true", "lane == 0", "0", "(long long)tid", std::to_string(block), "true", {}};
        break;
    case Selector::Kind::thread:
        t = {fmt::format("tid == {}", n), "true", "lane", "0", "1", fmt::format("warp == {}", n / 32), {}};
        break;
    case Selector::Kind::warp: {
        const int lanes = std::max(0, std::min(32, block - 32 * n));
        t = {fmt::format("warp == {}", n), "lane == 0", "0", "(long long)lane",
             std::to_string(lanes), fmt::format("warp == {}", n), {}};
        break;
    }
    case Selector::Kind::elected:
        t = {fmt::format("warp == {} && is_leader", n), "true", "lane", "0", "1",
             fmt::format("warp == {}", n), {}};
        break;
    case Selector::Kind::not_elected:
        // Every thread but warp n's leader. Ranks close the gap the leader leaves; only
        // warp n knows where its leader is, and only warp n needs to.
        t.exec = fmt::format("!(warp == {} && is_leader)", n);
        t.recorder = fmt::format("lane == ((warp == {} && leader_lane == 0) ? 1 : 0)", n);
        t.record_lane = "0";
        t.rank = fmt::format(
            "(long long)(warp < {0} ? tid : warp > {0} ? tid - 1 : {1} + lane - (lane > (int)leader_lane ? 1 : 0))",
            n, 32 * n);
        t.count = std::to_string(block - 1);
        t.warp_records = "true";
        break;
    case Selector::Kind::predicate: {
        // The ballot comes before the op's branch: __ballot_sync needs the whole warp, and
        // only the selected lanes enter the branch. The lowest selected lane records. A loop
        // variable is the loop's counter (or its value, written out), as in any expression:
        // the ballot is taken again at each iteration.
        const auto pred_of = [&](const char* tid, const char* lane, const char* warp) {
            return op.by.pred.to_cxx(
                [&](const std::string& v) -> std::string {
                    if (v == "tid") return tid;
                    if (v == "lane") return lane;
                    if (v == "warp") return warp;
                    if (v == "cta" || v == "rank")
                        fail(op, "a selector expression uses a variable other than tid, lane, warp and loop variables");
                    return var_cxx(v, op, false);
                },
                false);
        };
        const std::string mask = fmt::format("sel_mask_{}", op.id);
        t.setup.push_back(fmt::format("const unsigned {} = __ballot_sync(warp_mask, ({}) != 0LL);", mask,
                                      pred_of("(long long)tid", "(long long)lane", "(long long)warp")));
        t.exec = fmt::format("(({} >> lane) & 1u) != 0u", mask);
        t.recorder = fmt::format("lane == __ffs({}) - 1", mask);
        t.record_lane = "0";
        t.warp_records = fmt::format("{} != 0u", mask);
        if (op.kind != OpKind::compute) break;
        // compute's round-robin share: this thread's rank among the selected ones, and
        // their number (a loop over the block: the predicate is any expression).
        const std::string rank = fmt::format("sel_rank_{}", op.id), count = fmt::format("sel_count_{}", op.id);
        t.setup.push_back(fmt::format("long long {} = 0, {} = 0;", rank, count));
        t.setup.push_back(fmt::format("for (int t_ = 0; t_ < {}; ++t_) if (({}) != 0LL) {{ {} += t_ < tid; ++{}; }}",
                                      block, pred_of("(long long)t_", "(long long)(t_ & 31)", "(long long)(t_ >> 5)"),
                                      rank, count));
        t.setup.push_back(fmt::format("(void){}; (void){};", rank, count));
        t.rank = rank;
        t.count = count;
        break;
    }
    }
    return t;
}

std::string KernelWriter::var_cxx(const std::string& name, const Op& op, bool as_float) const {
    for (size_t d = loop_vars_.size(); d-- > 0;) {
        if (loop_vars_[d] != name) continue;
        if (loop_values_[d]) return as_float ? fmt::format("(float){}", *loop_values_[d]) : fmt::format("{}LL", *loop_values_[d]);
        return as_float ? fmt::format("(float)L{}", d) : fmt::format("L{}", d);
    }
    if (name == "cta") return as_float ? "(float)cta_rank" : "cta_rank";
    if (name == "rank") return as_float ? "(float)cluster_rank" : "cluster_rank";
    // Per-thread ops (the validator allows these names nowhere else).
    if (name == "tid" || name == "lane" || name == "warp")
        return as_float ? "(float)" + name : "(long long)" + name;
    fail(op, "expression uses a variable that is neither a loop variable, cta, rank, tid, lane nor warp");
}

std::string KernelWriter::int_expr(const Expr& e, const Op& op, const char* key) const {
    if (e.empty()) fail(op, fmt::format("missing integer expression for `{}`", key));
    return "((long long)(" +
           e.to_cxx([&](const std::string& v) { return var_cxx(v, op, false); }, false) + "))";
}

KernelWriter::SharedAddr KernelWriter::slot_addr(const Ref& r, const Op& op,
                                                 const char* key) const {
    const SharedSlot* slot = layout_.find(r.name);
    if (!slot) fail(op, fmt::format("`{}` names no shared slot", key));
    SharedAddr a;
    if (r.index.empty()) {
        if (slot->count > 1) fail(op, fmt::format("`{}` is an array and needs an index", key));
        a.offset = fmt::format("{}u", slot->offset);
        a.elem_index = "0";
    } else if (r.index.is_constant()) {
        const int64_t i = r.index.eval_int({});
        if (i < 0 || i >= slot->count)
            fail(op, fmt::format("`{}` index {} is outside the array (size {})", key, i, slot->count));
        a.offset = fmt::format("{}u", slot->offset + i * slot->stride);
        a.elem_index = std::to_string(i);
    } else {
        // A hand-written kernel indexes a stage array with `t % 4` unchecked; so does this one
        // where every value the index can take is inside the array.
        a.elem_index = index_in_range(r.index, slot->count)
                           ? int_expr(r.index, op, key)
                           : fmt::format("checked_index({}, {})", int_expr(r.index, op, key), slot->count);
        a.offset = fmt::format("(unsigned)({} + {} * {})", slot->offset, slot->stride, a.elem_index);
    }
    a.addr = "smem_base + " + a.offset;
    return a;
}

bool KernelWriter::index_in_range(const Expr& index, int64_t count) const {
    std::vector<std::pair<std::string, int64_t>> ranges;  // variable, number of values (0..n-1)
    int64_t combos = 1;
    for (const std::string& v : index.variables()) {
        int64_t n = -1;
        for (size_t d = loop_vars_.size(); d-- > 0;)
            if (loop_vars_[d] == v) {
                if (!loop_counts_[d].is_constant()) return false;
                n = loop_counts_[d].eval_int({});
                break;
            }
        if (n < 0 && v == "cta") n = s_.launch.num_ctas();
        if (n < 0 && v == "rank") n = s_.launch.cluster_size();
        if (n <= 0) return false;
        combos *= n;
        if (combos > (int64_t{1} << 18)) return false;
        ranges.emplace_back(v, n);
    }
    Expr::IntEnv env;
    for (int64_t k = 0; k < combos; ++k) {
        int64_t rest = k;
        for (const auto& [v, n] : ranges) {
            env[v] = rest % n;
            rest /= n;
        }
        try {
            const int64_t i = index.eval_int(env);
            if (i < 0 || i >= count) return false;
        } catch (const std::exception&) {
            return false;  // division by zero: keep the check
        }
    }
    return true;
}

KernelWriter::SharedAddr KernelWriter::buffer_addr(const Ref& r, const Op& op) const {
    if (!s_.find_shared(r.name)) fail(op, "buffer reference names no shared buffer");
    return slot_addr(r, op, "buffer");
}

KernelWriter::SharedAddr KernelWriter::barrier_addr(const Ref& r, const Op& op) const {
    SharedAddr a = slot_addr(r, op, "barrier");
    for (size_t i = 0; i < s_.barriers.size(); ++i)
        if (s_.barriers[i].name == r.name) a.decl = static_cast<int>(i);
    if (a.decl < 0) fail(op, "barrier reference names no barrier");
    return a;
}

}  // namespace tmasim::device
