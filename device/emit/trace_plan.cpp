#include "device/emit/trace_plan.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "device/emit/kernel_abi.h"
#include "scenarios/layout.h"

namespace tmasim::device {

namespace {

// Walks the program the way the kernel writer emits it. `boundary`: the last word stored is
// the end of the op that ran last, so a timed op needs no begin word of its own.
class Planner {
public:
    explicit Planner(TracePlan& plan) : plan_(plan) {}

    bool walk(const std::vector<Op>& ops, bool boundary, bool record) {
        for (const Op& op : ops) {
            if (op.kind == OpKind::loop) {
                boundary = walk_loop(op, boundary, record);
                continue;
            }
            const bool timed = plan_.timed.is_timed(op);
            if (plan_.timed.is_folded(op)) continue;  // the word before it stays the last one
            const int words = timed ? (boundary ? 1 : 2) : 0;
            if (record) plan_.words_of_op[static_cast<size_t>(op.id)] = words;
            boundary = timed;
        }
        return boundary;
    }

private:
    bool walk_loop(const Op& loop, bool boundary, bool record) {
        // The body is entered from before the loop and from its own end: its first op may
        // lean on the word before it only if both ways in end with a timed op. (A body's end
        // state can depend on its entry only through loops at its tail, and only upwards.)
        const bool entry = boundary && walk(loop.body, true, false);
        const bool end = walk(loop.body, entry, record);
        return boundary && end;  // a loop may run no iteration
    }

    TracePlan& plan_;
};

void list_instances(const Scenario& s, const TracePlan& plan, const std::vector<Op>& ops, Expr::IntEnv& env,
                    std::vector<int64_t>& iters, std::vector<TracedInstance>* out, int64_t& words) {
    for (const Op& op : ops) {
        if (op.kind != OpKind::loop) {
            const int w = plan.words(op);
            if (w == 0) {
                if (out && plan.timed.is_folded(op))
                    out->push_back({&op, iters, op.by.per_iteration ? env : Expr::IntEnv{}, words, true});
                continue;
            }
            if (out) out->push_back({&op, iters, op.by.per_iteration ? env : Expr::IntEnv{}, words});
            words += w;
            continue;
        }
        const int64_t n = op.loop_count.eval_int(env);
        iters.push_back(0);
        for (int64_t i = 0; i < n; ++i) {
            env[op.var] = i;
            iters.back() = i;
            list_instances(s, plan, op.body, env, iters, out, words);
        }
        iters.pop_back();
        env.erase(op.var);
    }
}

}  // namespace

TracePlan plan_trace(const Scenario& s, TraceLevel level) {
    TracePlan plan;
    plan.timed = timed_ops(s, level);
    plan.words_of_op.assign(plan.timed.timed.size(), 0);
    Planner planner(plan);
    // The read after the kernel's prologue is the first boundary.
    planner.walk(s.program, true, true);
    return plan;
}

std::vector<TracedInstance> traced_instances(const Scenario& s, const TracePlan& plan, int cta,
                                             int64_t* total_words) {
    std::vector<TracedInstance> out;
    Expr::IntEnv env{{"cta", cta}, {"rank", cta % s.launch.cluster_size()}};
    std::vector<int64_t> iters;
    int64_t words = 0;
    list_instances(s, plan, s.program, env, iters, &out, words);
    if (total_words) *total_words = words;
    return out;
}

int64_t trace_words_per_warp(const Scenario& s, const TracePlan& plan) {
    int64_t most = 0;
    for (int cta = 0; cta < s.launch.num_ctas(); ++cta) {
        Expr::IntEnv env{{"cta", cta}, {"rank", cta % s.launch.cluster_size()}};
        std::vector<int64_t> iters;
        int64_t words = 0;
        list_instances(s, plan, s.program, env, iters, nullptr, words);
        most = std::max(most, words);
    }
    return most;
}

TraceBufferLayout trace_buffer_layout(const Scenario& s, const TracePlan& plan) {
    constexpr int64_t kMaxBufferBytes = int64_t{1} << 30;
    TraceBufferLayout l;
    l.warps = int64_t{s.launch.num_ctas()} * s.launch.num_warps();
    l.capacity = trace_words_per_warp(s, plan);
    l.stride = kTraceHeaderWords + TraceBufferLayout::padded(l.capacity);
    if (l.bytes() > kMaxBufferBytes)
        throw std::runtime_error(fmt::format(
            "tracing this scenario would store {} MiB of clock words ({} per warp, {} warps; the limit is {} MiB): "
            "time fewer ops (--trace waits or --trace none, or trace: false on the ops of the longest loops)",
            l.bytes() >> 20, l.capacity, l.warps, kMaxBufferBytes >> 20));
    return l;
}

TraceWordPlace place_trace_words(const Scenario& s, const TraceBufferLayout& layout, const SmLimits& sm) {
    constexpr int64_t kAlignSlack = 1024;  // the kernel aligns its dynamic shared memory up to 1024
    TraceWordPlace p;
    const int64_t used = compute_shared_layout(s).total_bytes;
    p.untraced_smem_bytes = used + kAlignSlack;
    p.smem_bytes = p.untraced_smem_bytes;
    p.ring_offset = (used + 15) / 16 * 16;
    if (layout.capacity == 0 || sm.sm_count <= 0 || sm.smem_per_sm <= 0) return p;
    // cp.async fills shared memory through the same path as a store to it: with the words in
    // shared memory the one-CTA LDGSTS stream ran 1.45x slower traced than untraced on an H100,
    // with them in global memory 1.21x (TMA and bulk streams: 1.12 in shared, 1.14-1.16 in
    // global; `tmasim bench executor-overhead --experiments`, TMASIM_TRACE_WORDS_IN_GLOBAL).
    const std::vector<const Op*> ops = s.all_ops();
    if (std::any_of(ops.begin(), ops.end(), [](const Op* op) { return op->kind == OpKind::cp_async; })) return p;
    // CTAs per SM the untraced kernel could have, and how many this grid needs: the words may
    // take the shared memory of CTAs the launch would never place on the SM anyway.
    const int64_t per_block = p.untraced_smem_bytes + sm.reserved_per_block;
    int64_t fit = sm.smem_per_sm / std::max<int64_t>(1, per_block);
    if (sm.max_threads_per_sm > 0) fit = std::min<int64_t>(fit, sm.max_threads_per_sm / std::max(1, s.launch.block));
    if (sm.max_blocks_per_sm > 0) fit = std::min<int64_t>(fit, sm.max_blocks_per_sm);
    const int64_t ctas = s.launch.num_ctas();
    const int64_t needed = std::max<int64_t>(1, std::min(fit, (ctas + sm.sm_count - 1) / sm.sm_count));
    const int64_t budget = std::min(sm.max_smem_optin, sm.smem_per_sm / needed - sm.reserved_per_block);
    const int64_t with_words =
        p.ring_offset + int64_t{s.launch.num_warps()} * TraceBufferLayout::padded(layout.capacity) * 4 + kAlignSlack;
    if (with_words > budget) return p;
    p.in_shared = true;
    p.smem_bytes = with_words;
    return p;
}

}  // namespace tmasim::device
