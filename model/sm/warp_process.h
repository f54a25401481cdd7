#pragma once
// One warp executing the scenario program: control flow (loops, `by` selectors),
// per-op events and costs, and the blocking waits. Each op is executed by the warp's
// lanes that the selector includes; warps with no such lane skip the op.
#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>
#include <string>
#include <type_traits>
#include <vector>

#include <systemc>

#include "model/core/event_log.h"
#include "model/sm/op_lanes.h"
#include "scenarios/expr.h"
#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::model {

class CtaModule;
class Cluster;
struct BarrierSlot;

// What a warp is blocked on, for hang reports.
struct BlockedAt {
    enum class Kind { none, mbarrier_wait, sync, bulk_wait, cp_async_wait, cluster_wait };
    Kind kind = Kind::none;
    const Op* op = nullptr;
    std::vector<int64_t> iters;
    int barrier = -1;  // mbarrier_wait: the CTA's barrier index; sync at a bar.sync: the named barrier id
    int64_t parity = 0;

    // `why` with these loop indices, or nothing (reset): `iters` keeps its buffer either way,
    // so a warp that blocks at every wait does not allocate at every wait. Out of line: its
    // temporaries would sit in block_until's frame, on the warp's stack through every wait.
    [[gnu::noinline]] void set(const BlockedAt& why, const std::vector<int64_t>& loop_iters) {
        std::vector<int64_t> keep = std::move(iters);
        *this = why;
        iters = std::move(keep);
        iters.assign(loop_iters.begin(), loop_iters.end());
    }
    void reset() { set(BlockedAt{}, {}); }
};

class WarpProcess {
public:
    // The stack SystemC gives each warp's thread: loops and std containers live on it.
    static constexpr size_t kStackBytes = 512 * 1024;

    WarpProcess(CtaModule& cta, int warp);

    void run();  // body of the warp's SC_THREAD
    // A kernel scenario's warp runs the kernel's PTX instead of the program (defined on the
    // kernel floor, model/kernel/kernel_warp.cpp, as exec is on the ops floor).
    void run_kernel();
    // The op a fault of this warp names (a kernel's warp sets it at each unit instruction).
    void set_current(const Op* op) { current_ = op; }
    // A kernel's fault or hang that no op names (a trap, the watchdog): reported with `rule`
    // and a message that says where; a fault ends the run.
    void kernel_report(Outcome outcome, const std::string& rule, const std::string& message);
    // About how many trace events this warp will log (model/sm/event_estimate.cpp), so the
    // run's event log can be sized once; 0 when it cannot tell.
    int64_t expected_events();
    int warp() const { return warp_; }
    bool finished() const { return finished_; }
    const BlockedAt& blocked() const { return blocked_; }

    // The warp context the op families (model/ops/) run an op with: its CTA, the values of
    // the program's variables, its events, its costs and its blocking waits.
    CtaModule& cta() const { return cta_; }
    const Expr::IntEnv& env() const { return env_; }  // loop variables, cta, rank
    const std::vector<int64_t>& iters() const { return iters_; }  // the enclosing loops' iterations
    int thread(int lane) const { return warp_ * 32 + lane; }
    int64_t eval(const Expr& e, int64_t fallback) const;  // over env(); `fallback` when empty
    int barrier_index(const Op& op) const;                // the op's barrier in this CTA
    // Lanes that get events: each executing lane for single-thread selectors, else lane 0.
    std::vector<int> event_lanes(const Op& op, const std::vector<int>& lanes) const;
    EventSite site(const Op& op, int lane) const;
    void emit(const Op& op, const std::vector<int>& ev_lanes, EventKind kind,
              const std::map<std::string, std::string>& detail = {});
    void spend(double config_cycles);
    // A borrowed `bool()` callable: block_until's condition lives on the caller's stack for
    // the whole wait, and a std::function of a lambda capturing three references allocated
    // on every wait.
    class Condition {
    public:
        template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Condition>>>
        Condition(F&& f)  // NOLINT: implicit, so callers pass their lambda as before
            : f_(const_cast<void*>(static_cast<const void*>(&f))),
              call_([](void* p) { return static_cast<bool>((*static_cast<std::remove_reference_t<F>*>(p))()); }) {}
        bool operator()() const { return call_(f_); }

    private:
        void* f_;
        bool (*call_)(void*);
    };
    // Waits on `ev` until `done`. `why` (for hang reports) is kept only while the warp is
    // blocked, with the warp's loop indices filled in then: a wait that finds `done` at once
    // copies nothing.
    void block_until(sc_core::sc_event& ev, Condition done, const BlockedAt& why);
    // barrier.sync 0 for `op` (sync itself, and the barriers convert_layout needs; those
    // record no wait events of their own, as the device records the op as one).
    double sync_release_cycles(const Op& op) const;  // the barrier once released, plus a traced kernel's hold
    void op_sync(const Op& op, bool wait_events = true);
    // The waits and barriers with their operands resolved (by an op's expressions, or a kernel's
    // registers): the mbarrier wait on phase parity `parity` of barrier `b`; bar.sync/bar.arrive
    // of named barrier `id` with `count` threads; bulk and cp.async group waits leaving at most
    // `n` groups pending; cp.async.mbarrier.arrive on barrier `b`. `ev`: the lanes that log.
    void wait_phase(const Op& op, const std::vector<int>& lanes, const std::vector<int>& ev, int b, int64_t parity);
    void named_barrier(const Op& op, const std::vector<int>& lanes, const std::vector<int>& ev, int id, int64_t count);
    void bulk_wait(const Op& op, const std::vector<int>& lanes, const std::vector<int>& ev, int64_t n);
    void cp_wait(const Op& op, const std::vector<int>& lanes, const std::vector<int>& ev, int64_t n);
    void cp_arrive(const Op& op, const std::vector<int>& lanes, int b, bool noinc);
    // The pieces of a wait a kernel's try_wait runs one by one (it tests first, and blocks only
    // when its own loop would spin): the uninit report, the parity check, the acquire.
    void report_uninit_wait(const Op& op, int lane, const BarrierSlot& slot);
    void check_parity_alias(const Op& op, const std::vector<int>& lanes, int barrier, int64_t parity);
    void observe_and_acquire(BarrierSlot& slot, int barrier, int64_t parity, const std::vector<int>& lanes);
    // A kernel's op instance: its events' loop indices are the warp's count of that op (`n`).
    void set_instance(int64_t n) {
        iters_.resize(1);
        iters_[0] = n;
    }
    // The warp's registers of each register tile (`tiles:`), as the tile's row-major bytes;
    // only the elements the warp's layout owns are meaningful.
    std::vector<uint8_t>& tile_registers(const std::string& name) { return tiles_[name]; }

private:
    void exec_ops(const std::vector<Op>& ops);
    double prologue_trace_cycles() const;
    // Runs one op if any lane of this warp executes it; false when the warp skips it
    // (model/ops/warp_dispatch.cpp: the switch over the op families).
    bool exec(const Op& op);
    double passing_cycles(const Op& op);  // an op none of its threads run
    // The lanes that execute `op` and those that log its events: the run's table
    // (OpLanesTable), or for an op the scenario does not hold, made here once; for a
    // per_iteration selector, made again in `env` (the warp's variables by default) at each call.
    const OpLanes& lanes_of(const Op& op) { return lanes_of(op, env_); }
    const OpLanes& lanes_of(const Op& op, const Expr::IntEnv& env);

    void op_barrier(const Op& op, const std::vector<int>& lanes);
    void op_wait(const Op& op, const std::vector<int>& lanes);
    void acquire_in_cluster(Cluster& cluster, int barrier, int64_t phase, const std::vector<int>& lanes);
    void op_named_barrier(const Op& op, const std::vector<int>& lanes);
    void op_bulk_wait(const Op& op, const std::vector<int>& lanes);
    void op_cp_wait(const Op& op, const std::vector<int>& lanes);
    void op_cp_arrive(const Op& op, const std::vector<int>& lanes);
    // Runs a per-thread op (ThreadAccess); returns its cycles and fills the events' detail.
    double per_thread_op(const Op& op, const std::vector<int>& lanes, const std::vector<int>& ev,
                         std::map<std::string, std::string>& detail);

    CtaModule& cta_;
    int warp_;
    bool finished_ = false;
    BlockedAt blocked_;
    Expr::IntEnv env_;
    std::vector<int64_t> iters_;
    const Op* current_ = nullptr;
    std::vector<std::string> passed_maps_;  // maps whose guarded tma.load this warp passed
    std::map<std::string, std::vector<uint8_t>> tiles_;
    std::unordered_map<const Op*, OpLanes> lanes_;  // ops the run's table lacks; nodes stay put as it grows
};

}  // namespace tmasim::model
