#include "model/sm/warp_process.h"

#include <algorithm>

#include <fmt/format.h>

#include "model/core/asan_stacks.h"
#include "model/sm/cluster_fabric.h"
#include "model/sm/cp_async_unit.h"
#include "model/sm/cta_module.h"
#include "model/core/hazard_rules.h"
#include "model/core/op_text.h"
#include "model/core/sim_time.h"

namespace tmasim::model {

WarpProcess::WarpProcess(CtaModule& cta, int warp) : cta_(cta), warp_(warp) {
    env_["cta"] = cta.index();
    env_["rank"] = cta.index() % cta.run().scenario.launch.cluster_size();  // %cluster_ctarank
}

void WarpProcess::run() {
    CoroutineStackScope stack(kStackBytes);
    try {
        spend(cta_.run().timing.kernel_prologue_cycles + prologue_trace_cycles());
        if (cta_.run().kernel) run_kernel();
        else exec_ops(cta_.run().scenario.program);
    } catch (const RunAborted&) {
        return;  // torn down after a hang or a fault: not "finished"
    } catch (const std::exception& e) {
        // Bad runtime values (an index outside an array, a copy outside its tensor,
        // division by zero in an expression) end the run like a device fault would.
        if (current_) cta_.fault(*current_, site(*current_, 0), e.what());
        return;
    }
    finished_ = true;
    blocked_ = {};
    cta_.run().last_warp_exit = std::max(cta_.run().last_warp_exit, now_cycles());
    cta_.warp_exited(warp_);
}

void WarpProcess::kernel_report(Outcome outcome, const std::string& rule, const std::string& message) {
    Diagnostic d;
    d.outcome = outcome;
    d.rule = rule;
    d.op = current_ ? current_->id : -1;
    d.iters = iters_;
    d.cta = cta_.index();
    d.message = message;
    cta_.run().log.report(std::move(d), site(current_ ? *current_ : Op{}, 0), now_cycles());
    if (outcome != Outcome::hazard && cta_.run().abort_run) cta_.run().abort_run();
}

// A traced kernel that keeps its clock words in global memory (model/core/trace_words_at.h)
// reaches its first op later than one keeping them in shared memory (the fitting recordings'
// medians differ by ~100 cycles on the H200). Every such recorded kernel has cp.async, so
// whether the words or the cp.async code costs it is not told apart; the untraced kernel pays neither.
double WarpProcess::prologue_trace_cycles() const {
    const RunContext& run = cta_.run();
    if (run.trace == TraceLevel::none) return 0.0;
    const int warps_per_subpartition = ((cta_.num_threads() + 31) / 32 + 3) / 4;
    return (run.trace_words_in_shared ? 0.0 : run.timing.trace_global_words_prologue_cycles) +
           (warps_per_subpartition - 1) * run.timing.trace_prologue_warp_cycles;
}

void WarpProcess::exec_ops(const std::vector<Op>& ops) {
    for (const Op& op : ops) {
        if (RunBudget* budget = cta_.run().budget) budget->tick();
        if (cta_.run().aborted) throw RunAborted{};
        if (op.kind == OpKind::loop) {
            current_ = &op;
            const int64_t n = eval(op.loop_count, 0);
            for (int64_t i = 0; i < n; ++i) {
                env_[op.var] = i;
                iters_.push_back(i);
                exec_ops(op.body);
                iters_.pop_back();
            }
            env_.erase(op.var);
            continue;
        }
        current_ = &op;
        // A kernel the device executor traces pays its probe (clock reads and a record) around
        // each op it times, in every warp: one that passes the op still reads the clock that
        // ends it. Predicting that kernel, the model pays the same, and nothing when it
        // predicts the kernel as it runs (trace level none, the default).
        const bool executed = exec(op);
        spend(cta_.run().probe_spent_cycles(op) + (executed ? 0.0 : passing_cycles(op)));
    }
}

// What this warp spends on an op none of its threads run (RunContext::passing_cycles); the
// first guarded tma.load of a map it passes also waits for the map's address to reach the SM
// (calibrate/elected_tma_pass: one load in the first phase cost 111 cycles over the bulk
// load's phase, two and four loads later 92 and 248).
double WarpProcess::passing_cycles(const Op& op) {
    const RunContext& run = cta_.run();
    double cycles = run.passing_cycles(op);
    if (RunContext::passes_guarded_tma_load(op) &&
        std::find(passed_maps_.begin(), passed_maps_.end(), op.map) == passed_maps_.end()) {
        passed_maps_.push_back(op.map);
        cycles += run.timing.elected_tma_map_first_pass_cycles;
    }
    return cycles;
}

const OpLanes& WarpProcess::lanes_of(const Op& op, const Expr::IntEnv& env) {
    if (const OpLanes* shared = cta_.run().op_lanes.find(op, warp_)) return *shared;
    if (op.by.per_iteration) {
        // Kept where it is while the lanes stay the same: the op being run holds a reference.
        OpLanes now = op_lanes_of(op, warp_, cta_.num_threads(), &env);
        OpLanes& kept = lanes_[&op];
        if (kept.lanes != now.lanes || kept.events != now.events) kept = std::move(now);
        return kept;
    }
    auto it = lanes_.find(&op);
    if (it == lanes_.end()) it = lanes_.emplace(&op, op_lanes_of(op, warp_, cta_.num_threads())).first;
    return it->second;
}

std::vector<int> WarpProcess::event_lanes(const Op& op, const std::vector<int>& lanes) const {
    return event_lanes_of(op, lanes);
}

EventSite WarpProcess::site(const Op& op, int lane) const {
    return EventSite{op.id, iters_, cta_.index(), warp_, lane};
}

void WarpProcess::emit(const Op& op, const std::vector<int>& ev_lanes, EventKind kind,
                       const std::map<std::string, std::string>& detail) {
    int64_t t = now_cycles();
    // The traced kernel reads one clock per op boundary: the read that ends an op is the one
    // that begins the next, taken after the probe's work (exec_ops spends it after the op). So
    // an op's complete carries the probe too, as on the device, where it is its successor's
    // issue. Not a wait_end: the waits' numbers (resumes, ready waits, barrier releases) were
    // measured begin to end on the traced device, the probe inside them (fitting traced
    // median with wait_ends stamped too: H200 9.9%, H100 10.4%; without: 9.6%, 9.6%).
    if (kind == EventKind::complete) t += whole_cycles(cta_.run().probe_stamped_cycles(op));
    for (int l : ev_lanes) cta_.run().log.add(site(op, l), kind, t, detail);
}

void WarpProcess::spend(double config_cycles) {
    const int64_t n = whole_cycles(config_cycles);
    if (n > 0) thread_wait(cycles(n));
    if (cta_.run().aborted) throw RunAborted{};
}

void WarpProcess::block_until(sc_core::sc_event& ev, Condition done, const BlockedAt& why) {
    if (!done()) {
        blocked_.set(why, iters_);
        do {
            thread_wait(ev);
            if (cta_.run().aborted) throw RunAborted{};
        } while (!done());
    }
    blocked_.reset();
}

int64_t WarpProcess::eval(const Expr& e, int64_t fallback) const {
    return e.empty() ? fallback : e.eval_int(env_);
}

int WarpProcess::barrier_index(const Op& op) const {
    const bool indexed = !op.barrier.index.empty();
    return cta_.barriers().index_of(op.barrier.name, indexed ? eval(op.barrier.index, 0) : 0, indexed);
}

// op_wait's rare paths, out of line: a warp blocks in op_wait, and its frame (608 bytes
// with these inlined) is on the warp's stack through every wait, its lines cold again at
// 132 CTAs when the wait returns.
[[gnu::noinline]] void WarpProcess::report_uninit_wait(const Op& op, int lane, const BarrierSlot& slot) {
    cta_.hazard(op, site(op, lane), "mbarrier.uninit",
                fmt::format("{}: wait on barrier {} that is not initialised {}", op_title(op), slot.name,
                            HazardRules::cite("mbarrier.uninit")),
                {{"barrier", slot.name}});
}

[[gnu::noinline]] void WarpProcess::acquire_in_cluster(Cluster& cluster, int barrier, int64_t phase,
                                                       const std::vector<int>& lanes) {
    std::vector<int> threads;
    for (int l : lanes) threads.push_back(thread(l));
    cluster.on_barrier_acquired(cta_, barrier, phase, threads);
}

// After the wait returned, in a frame of its own: called from op_wait, it lies where
// block_until's frames just were (lines the return brought back into cache), not in op_wait's.
[[gnu::noinline]] void WarpProcess::observe_and_acquire(BarrierSlot& slot, int b, int64_t parity,
                                                        const std::vector<int>& lanes) {
    const int64_t phase = slot.observed_phase(parity);
    int threads[32];  // the waiting threads, in lane order
    size_t n = 0;
    for (int l : lanes) threads[n++] = thread(l);
    // What this wait observed, for the parity (A8), one-observation (A9) and early-pass rules.
    if (slot.state.live() && phase >= 0) {
        slot.observed_by.raise(threads, n, phase);
        slot.observed_through = std::max(slot.observed_through, phase);
    }
    auto it = slot.released.find(phase);
    if (it != slot.released.end()) cta_.tracker().acquire_each(threads, n, it->second);
    if (Cluster* c = cta_.tracking_cluster()) acquire_in_cluster(*c, b, phase, lanes);  // a cluster of one acquires nothing
}

void WarpProcess::op_wait(const Op& op, const std::vector<int>& lanes) {
    wait_phase(op, lanes, lanes_of(op).events, barrier_index(op), eval(op.parity, 0));
}

void WarpProcess::wait_phase(const Op& op, const std::vector<int>& lanes, const std::vector<int>& ev, int b,
                             int64_t parity) {
    emit(op, ev, EventKind::wait_begin);
    const int64_t began = now_cycles();
    BarrierSlot& slot = cta_.barriers().at(b);
    bool waited = false;
    if (!slot.state.live()) {
        report_uninit_wait(op, ev.front(), slot);
    } else {
        check_parity_alias(op, lanes, b, parity);
        BlockedAt why{BlockedAt::Kind::mbarrier_wait, &op, {}, b, parity};
        block_until(slot.changed, [&] {
            bool done = !slot.state.live() || slot.state.test_wait(parity);
            waited = waited || !done;
            return done;
        }, why);
        observe_and_acquire(slot, b, parity, lanes);
    }
    const TimingParams& tp = cta_.run().timing;
    // A try_wait that finds its phase complete still takes mbarrier_wait_ready_cycles on the
    // H200 (not one issue slot): the instruction's round trip to the barrier in shared memory.
    // A blocked waiter whose warp-mates went on past the branch to the next op's vote (an
    // elected producer thread) resumes later than a whole blocked warp (next_warp_vote.h).
    const int live = std::min(32, cta_.num_threads() - warp_ * 32);
    const bool lane_alone = static_cast<int>(lanes.size()) < live && cta_.run().wait_meets_vote(op);
    double resume = lane_alone ? tp.mbarrier_lane_wait_resume_cycles : tp.mbarrier_wait_resume_cycles;
    // Such a lane, once blocked, does not run again before mbarrier_lane_wait_min_cycles have
    // passed since its wait began, however early the phase completes
    // (calibrate/lane_wait_arrival_delay: ~710 cycles when the arrivals come ~90 after).
    if (lane_alone) resume = std::max(resume, tp.mbarrier_lane_wait_min_cycles - double(now_cycles() - began));
    spend(waited ? resume : tp.mbarrier_wait_ready_cycles);
    emit(op, ev, EventKind::wait_end);
}

// The barrier's own release, plus, in a traced kernel whose tracer times this barrier and keeps
// its clock words in shared memory, the hold of the words' store that keeps its end clock from
// being read before the release (device/emit/kernel_writer_trace.cpp; with the words in global
// memory a __syncwarp holds it, at no cost past the release): the untraced kernel's barrier
// lets the warp run ahead.
double WarpProcess::sync_release_cycles(const Op& op) const {
    const RunContext& run = cta_.run();
    const bool barrier_op = op.kind == OpKind::sync || op.kind == OpKind::bar_sync;  // not convert_layout's
    const bool store_held = barrier_op && run.trace_words_in_shared && run.timed.is_timed(op);
    return run.timing.sync_cycles + (store_held ? run.timing.trace_sync_hold_cycles : 0.0);
}

void WarpProcess::op_sync(const Op& op, bool wait_events) {
    static const std::vector<int> ev{0};
    if (wait_events) emit(op, ev, EventKind::wait_begin);
    const uint64_t gen = cta_.sync_arrive(warp_);
    block_until(cta_.sync_event(), [&] { return cta_.sync_passed(gen); },
                BlockedAt{BlockedAt::Kind::sync, &op, {}, -1, 0});
    spend(sync_release_cycles(op));
    if (wait_events) emit(op, ev, EventKind::wait_end);
}

// bar.sync / bar.arrive id, count: the warp adds 32 arrivals; bar.sync then waits for the
// phase to complete (a count never reached hangs: sync.deadlock).
void WarpProcess::op_named_barrier(const Op& op, const std::vector<int>& lanes) {
    Expr::IntEnv we = env_;  // id and count are the warp's: evaluated at its first executing lane
    we["warp"] = warp_;
    we["lane"] = lanes.front();
    we["tid"] = thread(lanes.front());
    named_barrier(op, lanes, event_lanes(op, lanes), static_cast<int>(op.barrier_id.eval_int(we)), op.count.eval_int(we));
}

void WarpProcess::named_barrier(const Op& op, const std::vector<int>& lanes, const std::vector<int>& ev, int id,
                                int64_t count) {
    const bool waits = op.kind == OpKind::bar_sync;
    if (waits) emit(op, ev, EventKind::wait_begin);
    std::vector<int> threads;
    for (int l : lanes) threads.push_back(thread(l));
    int64_t expected = 0;
    const auto arrival = cta_.named_barriers().arrive(cta_.tracker(), id, count, threads, waits, expected);
    if (!arrival)
        throw std::out_of_range(fmt::format("{}: warp {} arrives on named barrier {} with count {} while its phase "
                                            "expects {} threads (PTX 9.7.13.1: one count per phase)",
                                            op_title(op), warp_, id, count, expected));
    if (arrival->completed) cta_.named_barrier_event().notify(sc_core::SC_ZERO_TIME);
    if (!waits) {
        emit(op, ev, EventKind::issue);
        spend(cta_.run().timing.bar_arrive_cycles);
        emit(op, ev, EventKind::complete);
        return;
    }
    const uint64_t gen = arrival->generation;
    block_until(cta_.named_barrier_event(), [&] { return cta_.named_barriers().passed(id, gen); },
                BlockedAt{BlockedAt::Kind::sync, &op, {}, id, 0});
    spend(sync_release_cycles(op));
    emit(op, ev, EventKind::wait_end);
}

void WarpProcess::op_bulk_wait(const Op& op, const std::vector<int>& lanes) {
    bulk_wait(op, lanes, event_lanes(op, lanes), eval(op.n, 0));
}

void WarpProcess::bulk_wait(const Op& op, const std::vector<int>& lanes, const std::vector<int>& ev, int64_t n) {
    emit(op, ev, EventKind::wait_begin);
    const bool read_only = op.kind == OpKind::bulk_wait_group_read;
    bool waited = false;
    block_until(cta_.engine().progress(), [&] {
        for (int l : lanes)
            if (!cta_.groups().wait_satisfied(thread(l), n, read_only)) {
                waited = true;
                return false;
            }
        return true;
    }, BlockedAt{BlockedAt::Kind::bulk_wait, &op, {}, -1, 0});
    // The wait covers the older groups' stores: their sources (and without .read their
    // global results) are now the thread's to reuse (C19).
    for (int l : lanes) {
        const std::vector<int> tokens = cta_.groups().covered_tokens(thread(l), n);
        if (!tokens.empty()) cta_.bulk_stores().covered(tokens, read_only, cta_.tracker().advance(thread(l)));
    }
    const TimingParams& tp = cta_.run().timing;
    spend(waited ? tp.bulk_wait_resume_cycles : tp.issue_cycles);
    emit(op, ev, EventKind::wait_end);
}

void WarpProcess::op_cp_wait(const Op& op, const std::vector<int>& lanes) {
    cp_wait(op, lanes, event_lanes(op, lanes), op.kind == OpKind::cp_async_wait_all ? 0 : eval(op.n, 0));
}

void WarpProcess::cp_wait(const Op& op, const std::vector<int>& lanes, const std::vector<int>& ev, int64_t n) {
    emit(op, ev, EventKind::wait_begin);
    // cp.async.wait_all is cp.async.commit_group followed by cp.async.wait_group 0.
    const bool all = op.kind == OpKind::cp_async_wait_all;
    if (all)
        for (int l : lanes) cta_.cp_groups().commit(thread(l));
    bool waited = false;
    block_until(cta_.cp_unit().progress(), [&] {
        for (int l : lanes)
            if (!cta_.cp_groups().wait_satisfied(thread(l), n)) {
                waited = true;
                return false;
            }
        return true;
    }, BlockedAt{BlockedAt::Kind::cp_async_wait, &op, {}, -1, 0});
    // The covered copies become visible to this thread only (C20).
    for (int l : lanes) {
        const int t = thread(l);
        const std::vector<int> tokens = cta_.cp_groups().covered_tokens(t, n);
        if (tokens.empty()) continue;
        const uint32_t cluster_time = cta_.async_writes().wait_covered(t, tokens, cta_.tracker().advance(t));
        if (Cluster* c = cluster_of(cta_)) c->cp_async_covered(cta_, t, cluster_time);
        cta_.tracker().cp_async_waited(t, cta_.cp_groups().covered_time(t, n));
    }
    const TimingParams& tp = cta_.run().timing;
    spend(waited ? tp.cp_async_wait_resume_cycles : tp.issue_cycles);
    emit(op, ev, EventKind::wait_end);
}

void WarpProcess::check_parity_alias(const Op& op, const std::vector<int>& lanes, int b, int64_t parity) {
    // A8: the parity names the thread's next phase with that parity after the last one it
    // observed. If that phase is two or more behind the barrier's current phase, the parity
    // aliases a newer phase: the wait returns for (or waits on) the wrong one.
    BarrierSlot& slot = cta_.barriers().at(b);
    const int64_t current = slot.state.phase();
    for (int l : lanes) {
        const int64_t last = slot.observed_by.at(thread(l));
        const int64_t intended = ((last + 1) & 1) == (parity & 1) ? last + 1 : last + 2;
        if (intended > current - 2) continue;
        cta_.hazard_once(op, site(op, l), "mbarrier.parity_alias",
                         HazardRules::message("mbarrier.parity_alias",
                                              fmt::format("{}: thread {} waits on barrier {} with parity {} for phase "
                                                          "{}, but the barrier is already in phase {}",
                                                          op_title(op), thread(l), slot.name, parity & 1, intended,
                                                          current)),
                         {{"barrier", slot.name}, {"intended_phase", std::to_string(intended)},
                          {"current_phase", std::to_string(current)}});
        return;
    }
}

}  // namespace tmasim::model
