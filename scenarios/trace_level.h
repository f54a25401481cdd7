#pragma once
// How much of a scenario's kernel is timed op by op. On the device: `all` brackets every op
// with %clock64 reads and a 16-byte record, `waits` only the ops that wait (the rest run
// bare), `none` adds no per-op code (each warp's entry and exit and the kernel time only), so
// the kernel runs as written by hand. On the model: the ops the device would bracket pay
// the executor's measured probe cost (arch config trace_probe_cycles), so the model predicts
// the kernel traced at that level; `none`, its default, predicts the kernel as it runs.
#include <optional>
#include <string>
#include <vector>

#include "scenarios/ir.h"

namespace tmasim {

enum class TraceLevel { all, waits, none };

const char* to_string(TraceLevel level);
std::optional<TraceLevel> parse_trace_level(const std::string& text);  // "all", "waits", "none"

// Ops that block a thread until something else happens: mbarrier.wait, sync, the
// wait_group family, wgmma.wait_group, cluster.wait and cluster.sync.
bool is_waiting_op(const Op& op);
// Whether the kernel brackets `op` with clock reads and records it at `level`, taken alone.
bool op_traced(const Op& op, TraceLevel level);

// Which ops of a scenario are timed, by Op::id. At level `all`, two kinds of run are timed
// as one: ops that every thread issues back to back and that never block (cp.async and
// cp.async.commit_group, and loops of nothing else), and ops that a warp's elected thread runs
// back to back in one branch (arrive_expect_tx then a copy: no wait, no generic shared write).
// An op of a run that is followed in its body by another of the run is folded into it (not
// timed; its issue and complete are where the run began) and the run's last op is timed (it
// begins where the run began). A clock read and a
// word between two cp.async cost more than the copy's issue itself (the one-CTA LDGSTS
// stream ran 1.9x slower traced, `tmasim bench executor-overhead`). An op with its own
// `trace:` setting is never folded. Model and executor share this rule.
// A third kind of run is timed op by op, but cheaply: ops that one thread (`by: threadN`) runs
// back to back share one branch, in which that thread reads the clock after each op into a
// register; its warp reads the clock once more after the branch and moves the words then
// (joins_one_thread_branch). Such an op is `in_branch`; the last of its run is `ends_branch`.
struct TimedOps {
    std::vector<bool> timed;   // the op pays a clock read and stores its word(s)
    std::vector<bool> folded;  // the op is part of a run timed by a later op
    std::vector<bool> in_branch;    // timed by a read inside a one-thread run's branch
    std::vector<int> ends_branch;   // the last op of such a run: the number of its ops, whose words move after it
    bool is_timed(const Op& op) const { return at(timed, op); }
    bool is_folded(const Op& op) const { return at(folded, op); }
    bool is_in_branch(const Op& op) const { return at(in_branch, op); }
    int branch_ops_ending(const Op& op) const {  // 0 for an op that does not end a run
        return op.id >= 0 && static_cast<size_t>(op.id) < ends_branch.size() ? ends_branch[static_cast<size_t>(op.id)] : 0;
    }

private:
    static bool at(const std::vector<bool>& v, const Op& op) {
        return op.id >= 0 && static_cast<size_t>(op.id) < v.size() && v[static_cast<size_t>(op.id)];
    }
};
TimedOps timed_ops(const Scenario& s, TraceLevel level);

// An op that one thread may run in one branch with the ops beside it (by `threadN` or
// `elected`): nothing in it needs the rest of the warp after the branch (no mbarrier or
// cluster wait, no barrier, no generic shared write, which the warp syncs after, no
// snapshot, no loop). The executor's kernel writer groups ops by it.
bool joins_one_thread_branch(const Op& op);

}  // namespace tmasim
