#include "device/trace_plan.h"

#include <algorithm>

#include "device/kernel_abi.h"

namespace tmasim::device {

namespace {

// Walks the program the way the kernel writer emits it. `boundary`: the last word stored is
// the end of the op that ran last, so a timed op needs no begin word of its own.
class Planner {
public:
    Planner(TraceLevel level, TracePlan& plan) : level_(level), plan_(plan) {}
    void finish() { close_segment(); }

    bool walk(const std::vector<Op>& ops, bool boundary, bool record) {
        for (const Op& op : ops) {
            if (op.kind == OpKind::loop) {
                boundary = walk_loop(op, boundary, record);
                continue;
            }
            const bool timed = op_traced(op, level_);
            const int words = timed ? (boundary ? 1 : 2) : 0;
            if (record) {
                plan_.words_of_op[static_cast<size_t>(op.id)] = words;
                segment_ += words;
            }
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
        if (record) close_segment();  // the pointer advances before the loop
        const bool end = walk(loop.body, entry, record);
        if (record) close_segment();  // and at the end of each iteration
        return boundary && end;       // a loop may run no iteration
    }
    void close_segment() {
        plan_.max_segment = std::max(plan_.max_segment, segment_);
        segment_ = 0;
    }

    TraceLevel level_;
    TracePlan& plan_;
    int64_t segment_ = 0;
};

int max_op_id(const std::vector<Op>& ops) {
    int most = -1;
    for (const Op& op : ops) most = std::max({most, op.id, op.kind == OpKind::loop ? max_op_id(op.body) : -1});
    return most;
}

void list_instances(const Scenario& s, const TracePlan& plan, const std::vector<Op>& ops, Expr::IntEnv& env,
                    std::vector<int64_t>& iters, std::vector<TracedInstance>* out, int64_t& words) {
    for (const Op& op : ops) {
        if (op.kind != OpKind::loop) {
            const int w = plan.words(op);
            if (w == 0) continue;
            if (out) out->push_back({&op, iters, words});
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
    plan.words_of_op.assign(static_cast<size_t>(max_op_id(s.program) + 1), 0);
    Planner planner(level, plan);
    // The read after the kernel's prologue is the first boundary.
    planner.walk(s.program, true, true);
    planner.finish();
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
    constexpr int64_t kMaxBufferWords = int64_t{32} << 20;  // 256 MiB of 64-bit words
    TraceBufferLayout l;
    l.warps = int64_t{s.launch.num_ctas()} * s.launch.num_warps();
    const int64_t per_warp_bound = kMaxBufferWords / std::max<int64_t>(1, l.warps) - kTraceHeaderWords - plan.max_segment;
    l.capacity = std::max<int64_t>(0, std::min(trace_words_per_warp(s, plan), per_warp_bound));
    l.stride = (kTraceHeaderWords + l.capacity + plan.max_segment + 1) / 2 * 2;  // 16-byte aligned regions
    return l;
}

}  // namespace tmasim::device
