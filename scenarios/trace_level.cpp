#include "scenarios/trace_level.h"

#include <algorithm>

#include "scenarios/op_table.h"

namespace tmasim {

const char* to_string(TraceLevel level) {
    switch (level) {
    case TraceLevel::all: return "all";
    case TraceLevel::waits: return "waits";
    case TraceLevel::none: return "none";
    }
    return "all";
}

std::optional<TraceLevel> parse_trace_level(const std::string& text) {
    if (text == "all") return TraceLevel::all;
    if (text == "waits") return TraceLevel::waits;
    if (text == "none") return TraceLevel::none;
    return std::nullopt;
}

// The op table's wait flag: the ops that may block the warp (mbarrier.wait, the syncs and
// barriers, every wait_group).
bool is_waiting_op(const Op& op) { return op_has(op.kind, kWait); }

bool op_traced(const Op& op, TraceLevel level) {
    if (op.kind == OpKind::loop) return false;
    if (op.trace) return *op.trace;
    switch (level) {
    case TraceLevel::all: return true;
    case TraceLevel::waits: return is_waiting_op(op);
    case TraceLevel::none: return false;
    }
    return true;
}

namespace {

// An op a run may hold: every thread issues it and goes on (no wait, no branch of its own).
bool joins_issue_run(const Op& op) {
    if (op.trace) return false;
    if (op.kind == OpKind::loop)
        return !op.body.empty() && std::all_of(op.body.begin(), op.body.end(), joins_issue_run);
    return op.by.kind == Selector::Kind::all &&
           (op.kind == OpKind::cp_async || op.kind == OpKind::cp_async_commit_group);
}

// An op the elected thread of a warp runs in the same branch as the next one: no wait, no
// generic shared write (the warp syncs after one), no snapshot. The kernel times such a run
// by one clock read after its branch (a read inside it cost the one-CTA TMA stream ~10% on an
// H100), so every op of it but the last is folded into the run.
bool joins_elected_run(const Op& op) {
    return !op.trace && op.kind != OpKind::loop && op.by.kind == Selector::Kind::elected && !is_waiting_op(op) &&
           !(op_has(op.kind, kWritesShared) && !op_has(op.kind, kAsync)) && op.kind != OpKind::shared_snapshot;
}

bool folds_into_next(const Op& op, const Op& next) {
    if (joins_issue_run(op) && joins_issue_run(next)) return true;
    return joins_elected_run(op) && joins_elected_run(next) && op.by.n == next.by.n;
}

void mark(const std::vector<Op>& ops, TraceLevel level, bool inside_folded, TimedOps& out) {
    for (size_t i = 0; i < ops.size(); ++i) {
        const Op& op = ops[i];
        const bool folded =
            inside_folded || (level == TraceLevel::all && i + 1 < ops.size() && folds_into_next(op, ops[i + 1]));
        if (op.id >= 0) {
            out.folded[static_cast<size_t>(op.id)] = folded;
            out.timed[static_cast<size_t>(op.id)] = !folded && op_traced(op, level);
        }
        if (op.kind == OpKind::loop) mark(op.body, level, folded, out);
    }
}

// Consecutive ops by the same `threadN` in one branch, all timed or none (the kernel writer's
// run); a run of two or more timed ops is read inside its branch.
void mark_thread_runs(const std::vector<Op>& ops, TimedOps& out) {
    for (size_t i = 0; i < ops.size();) {
        if (ops[i].kind == OpKind::loop) mark_thread_runs(ops[i].body, out);
        const Op& first = ops[i];
        size_t end = i + 1;
        if (first.by.kind == Selector::Kind::thread && joins_one_thread_branch(first))
            while (end < ops.size() && ops[end].by.kind == Selector::Kind::thread && ops[end].by.n == first.by.n &&
                   joins_one_thread_branch(ops[end]) && out.is_timed(ops[end]) == out.is_timed(first))
                ++end;
        if (end - i >= 2 && out.is_timed(first)) {
            for (size_t k = i; k < end; ++k)
                if (ops[k].id >= 0) out.in_branch[static_cast<size_t>(ops[k].id)] = true;
            if (ops[end - 1].id >= 0) out.ends_branch[static_cast<size_t>(ops[end - 1].id)] = static_cast<int>(end - i);
        }
        i = end;
    }
}

}  // namespace

bool joins_one_thread_branch(const Op& op) {
    const bool one_thread = op.by.kind == Selector::Kind::elected || op.by.kind == Selector::Kind::thread;
    const bool barrier = op.kind == OpKind::sync || op.kind == OpKind::bar_sync || op.kind == OpKind::cluster_wait ||
                         op.kind == OpKind::cluster_sync;
    const bool generic_shared_write = op_has(op.kind, kWritesShared) && !op_has(op.kind, kAsync);
    return one_thread && op.kind != OpKind::loop && op.kind != OpKind::mbarrier_wait && !barrier &&
           !generic_shared_write && op.kind != OpKind::shared_snapshot;
}

TimedOps timed_ops(const Scenario& s, TraceLevel level) {
    TimedOps out;
    int most = -1;
    for (const Op* op : s.all_ops()) most = std::max(most, op->id);
    const size_t n = static_cast<size_t>(most + 1);
    out.timed.assign(n, false);
    out.folded.assign(n, false);
    out.in_branch.assign(n, false);
    out.ends_branch.assign(n, 0);
    mark(s.program, level, false, out);
    mark_thread_runs(s.program, out);
    return out;
}

}  // namespace tmasim
