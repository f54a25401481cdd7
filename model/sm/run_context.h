#pragma once
// What every CTA of one run shares: the scenario, the timing, global memory, the log.
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/core/arch_config.h"
#include "model/core/event_log.h"
#include "model/core/run_budget.h"
#include "model/sm/op_lanes.h"
#include "model/state/dram_channel.h"
#include "model/state/global_memory.h"
#include "model/state/l2_request_path.h"
#include "model/state/next_warp_vote.h"
#include "model/state/snapshot_log.h"
#include "model/state/tensormap_state.h"
#include "scenarios/ir.h"
#include "scenarios/layout.h"
#include "scenarios/layout_ops.h"
#include "scenarios/op_table.h"
#include "scenarios/trace_level.h"

namespace tmasim::model {

class ClusterFabric;
namespace kernel {
struct KernelImage;
}

struct RunContext {
    RunContext(const Scenario& s, const ArchConfig& a, const SharedLayout& l, TraceLevel t)
        : scenario(s), arch(a), timing(a.timing()), layout(l), trace(t), timed(timed_ops(s, t)), global(s), tensormaps(s),
          dram(a.timing().hbm_bytes_per_cycle),
          sm_dram(static_cast<size_t>(s.launch.num_ctas()),
                  DramChannel(a.timing().hbm_sm_bytes_per_cycle, a.timing().hbm_sm_burst_bytes)),
          l2_requests(a.timing().l2_sectors_per_cycle, a.timing().l2_request_overhead_sectors) {}

    const Scenario& scenario;
    const ArchConfig& arch;
    const TimingParams& timing;
    const SharedLayout& layout;
    TraceLevel trace;  // the ops that pay the executor's probe cost (none: the untraced kernel)
    TimedOps timed;    // which ops those are (runs of cp.async are timed once, as on the device)
    const OpLanesTable op_lanes{scenario};  // each op's lanes in each warp, for every CTA
    // Whether the program has cp.async ops: only then do CTAs get the unit and clock slots for them.
    const bool uses_cp_async = [this] {
        for (const Op* op : scenario.all_ops())
            if (op_family(op->kind) == OpFamily::cp_async) return true;
        return false;
    }();
    // Where the traced kernel keeps its clock words (model/core/trace_words_at.h): in shared
    // memory a timed barrier's end clock waits for their store (trace_sync_hold_cycles).
    bool trace_words_in_shared = true;
    GlobalMemory global;
    TensorMapStates tensormaps;  // tensor maps: fields, the global objects (B15), in-flight reads
    DramChannel dram;            // HBM, shared by every CTA's TMA engine
    // Each CTA's SM's own share of HBM reads, by CTA index: the model places no CTAs on SMs, so
    // it takes one CTA per SM, as the streams it was measured with ran (CTAs sharing an SM on a
    // GPU share its share).
    std::vector<DramChannel> sm_dram;
    L2RequestPath l2_requests;   // L1 to L2: the layout ops' line requests (loads and stores)
    // Where every CTA does the same work and none reaches another (model/run/cta_schedule.h),
    // each CTA's even share of `dram`, by CTA index (set by Simulation); else empty, and the
    // CTAs pass `dram` itself, first come first served.
    std::vector<DramChannel> chip_share;
    DramChannel& chip_for(int cta) { return chip_share.empty() ? dram : chip_share[static_cast<size_t>(cta)]; }
    EventLog log;
    SnapshotLog snapshots;  // shared.snapshot images, appended after the final memory
    // L2AtLaunch::inputs and the global tensors fit in L2 together: first touches pay the cold
    // latency, the bytes stream at L2's rate, not through the HBM shares (set by Simulation).
    bool inputs_in_l2 = false;
    int64_t last_warp_exit = 0;  // cycle the last warp to finish finished: the kernel's span
    bool aborted = false;  // set when the run is torn down; every thread then unwinds
    std::function<void()> abort_run;  // sets `aborted` and wakes every blocked thread
    // The run's budget of time and memory (owned by run_model): ticked per op, it may only
    // stop the run (abort_run), never change it. Null: no budget (tests building a Simulation).
    RunBudget* budget = nullptr;
    ClusterFabric* fabric = nullptr;  // the run's clusters (owned by Simulation)
    // A kernel scenario's kernel, parsed and decoded (owned by Simulation); null for a program.
    kernel::KernelImage* kernel = nullptr;
    // A kernel's mbarriers are words of shared memory the model meets as they are used; every
    // CTA's proxy tracker keeps clock slots for this many (more is refused, with a message).
    static constexpr int kKernelBarrierSlots = 128;
    // Each layout op's view (its tile's layout, offsets, vector plan), keyed by (op id,
    // convert_layout's destination side): built once per run, not per warp and iteration.
    std::map<std::pair<int, bool>, LayoutOpView> layout_views;

    // A timed global load by any selector but `all` forms its 64-bit address inside the
    // branch, and the clock read that ends it waits for the value past the branch's end
    // (calibrate/global_load_latency: the same L2 hit by a predicate's warp and by all warps;
    // a `by: warpN` or `threadN` op is the same branch without the vote). Untimed, nothing
    // waits there for the value.
    double selection_cycles(const Op& op) const {
        const bool branched_load =
            op.kind == OpKind::global_load && op.by.kind != Selector::Kind::all && timed.is_timed(op);
        return (op.by.kind == Selector::Kind::predicate ? predicate_cycles(op) : 0.0) +
               (branched_load ? timing.branched_global_load_cycles : 0.0);
    }

    // What the traced kernel's clock reads cost around a timed op: `spent` after it (its own
    // read and word, in every warp), `stamped` into its complete (the read that ends it). An op
    // of a one-thread run (TimedOps::in_branch) is ended by a bare read inside the branch; the
    // words of the whole run move after its last op, each at the probe's cost (the guide's
    // device-encoded tensormap: thread 0's eleven ops ~10 cycles faster each than the model's
    // op plus probe, the CTA sync after them ~280 cycles slower).
    double probe_spent_cycles(const Op& op) const {
        if (!timed.is_timed(op)) return 0.0;
        if (!timed.is_in_branch(op)) return timing.trace_probe_cycles;
        return timing.trace_in_branch_probe_cycles + timed.branch_ops_ending(op) * timing.trace_probe_cycles;
    }
    double probe_stamped_cycles(const Op& op) const {
        if (!timed.is_timed(op)) return 0.0;
        return timed.is_in_branch(op) ? timing.trace_in_branch_probe_cycles : timing.trace_probe_cycles;
    }

    // What a warp none of whose threads an op picks spends passing it. The traced kernel's
    // vote for a timed op by a predicate costs such a warp far more than the untraced one's
    // (traces/analysis/skipped_ops.py); a warp selector's branch costs nothing measurable.
    // An elected op is guarded, not branched (device/kernel_writer*.cpp: the elected lane's
    // instructions are predicated), and every other warp runs the guarded tma.load's code: it
    // waits for the tensor map's address, a kernel parameter, even where the guard is off
    // (WarpProcess adds the first pass of each map).
    static bool passes_guarded_tma_load(const Op& op) {
        return op.by.kind == Selector::Kind::elected && op.kind == OpKind::tma_load;
    }
    double passing_cycles(const Op& op) const {
        if (passes_guarded_tma_load(op)) return timing.elected_tma_load_pass_cycles;
        return op.by.kind == Selector::Kind::predicate && timed.is_timed(op) ? timing.trace_predicate_skip_cycles : 0.0;
    }

    // What an op `by` a predicate spends before it runs: the vote and branch that pick its
    // threads, and its index and value computed in the branch, where a run-time `/` or `%` of a
    // thread's coordinates is a chain of 64-bit integer instructions (calibrate/
    // shared_v4_conflict_warps).
    double predicate_cycles(const Op& op) const {
        return op.id >= 0 && static_cast<size_t>(op.id) < per_op_.size() ? per_op_[op.id].predicate_cycles
                                                                          : predicate_cost_of(op);
    }

    // Whether a wait by some of a warp's lanes leaves the others in the next op's vote
    // (next_warp_vote.h).
    bool wait_meets_vote(const Op& op) const {
        return op.id >= 0 && static_cast<size_t>(op.id) < per_op_.size() && per_op_[op.id].wait_meets_vote;
    }

    // The cycle an L2-missing read of `bytes` by CTA `cta`, reaching HBM at `now`, is through
    // its SM's share (sm_dram), which shrinks as the chip's HBM gets busy (dram_channel.h).
    int64_t sm_hbm_read_done(int cta, int64_t now, int64_t bytes) {
        const double scale = 1.0 - timing.hbm_sm_load_slowdown * chip_for(cta).utilization(now);
        return sm_dram[static_cast<size_t>(cta)].pass(now, bytes, scale);
    }

private:
    double predicate_cost_of(const Op& op) const {
        static const std::vector<std::string> kThreadVars{"tid", "lane", "warp", "cta", "rank"};
        const int divisions = op.index.divisions_of(kThreadVars) + op.value.divisions_of(kThreadVars);
        return timing.predicate_select_cycles + divisions * timing.predicate_division_cycles;
    }

    // The two per-op facts above, by op id, worked out once from the scenario.
    struct PerOp {
        double predicate_cycles = 0;
        bool wait_meets_vote = false;
    };
    std::vector<PerOp> per_op_ = [this] {
        std::vector<PerOp> v;
        for (const Op* op : scenario.all_ops()) {
            if (op->id < 0) continue;
            if (static_cast<size_t>(op->id) >= v.size()) v.resize(static_cast<size_t>(op->id) + 1);
            v[op->id].predicate_cycles = predicate_cost_of(*op);
            v[op->id].wait_meets_vote = op->kind == OpKind::mbarrier_wait && next_shared_op_is_vote(scenario.program, op->id);
        }
        return v;
    }();
};

}  // namespace tmasim::model
