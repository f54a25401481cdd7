// sc_spawn (one thread per warp, counted at run time) needs the dynamic-process API.
#define SC_INCLUDE_DYNAMIC_PROCESSES

#include "model/sm/cta_module.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "model/sm/barrier_storage.h"
#include "model/sm/cluster_fabric.h"
#include "model/sm/cp_async_unit.h"
#include "model/core/hazard_rules.h"
#include "model/core/op_text.h"
#include "model/core/sim_time.h"
#include "model/sm/warp_process.h"

namespace tmasim::model {

namespace {
constexpr int64_t kPhasesKept = 4;              // released clocks older than this can't be observed (A8)

int64_t smem_image_bytes(const SharedLayout& l) { return (l.total_bytes + 1023) / 1024 * 1024; }

// m[key] = value, without a search from the root when `key` is above every key there (a
// barrier's completed phases only grow, until an init starts them again): at 132 CTAs a
// walk down cold nodes was most of barrier_action.
template <class Map, class Value>
void assign_newest(Map& m, int64_t key, Value&& value) {
    if (m.empty() || std::prev(m.end())->first < key)
        m.emplace_hint(m.end(), key, std::forward<Value>(value));
    else
        m[key] = std::forward<Value>(value);
}

int barrier_count(const Scenario& s) {
    int64_t n = 0;
    for (const auto& b : s.barriers) n += b.count();
    return static_cast<int>(n);
}
}  // namespace

CtaModule::CtaModule(sc_core::sc_module_name name, RunContext& run, int cta)
    : sc_core::sc_module(name),
      run_(run),
      cta_(cta),
      smem_(smem_image_bytes(run.layout), run.global),
      tracker_(run.scenario.launch.block, static_cast<int64_t>(smem_.size()),
               run.kernel ? RunContext::kKernelBarrierSlots : barrier_count(run.scenario), run.uses_cp_async),
      barriers_(run.scenario, run.layout),
      groups_(run.scenario.launch.block),
      cp_groups_(run.scenario.launch.block),
      shared_accesses_(static_cast<int64_t>(smem_.size())),
      sync_(run.scenario.launch.num_warps()) {
    // A kernel's lanes are checked apart (SharedAccessHistory): an op scenario's warp is one.
    shared_accesses_.lanes_apart(run.kernel != nullptr);
    for (const Op* op : run.scenario.all_ops())
        if (op->kind == OpKind::mbarrier_wait) waited_barriers_.insert(op->barrier.name);
    engine_ = std::make_unique<TmaEngine>("tma", *this);
    // Only a program with cp.async ops gets the unit and its SystemC thread: a full-chip TMA
    // stream had 132 threads that only started, waited on nothing and were torn down. (The
    // thread never notified anything before its first copy, so the others run as before.)
    if (run.uses_cp_async) cp_unit_ = std::make_unique<CpAsyncUnit>("cp_async", *this);
    for (int w = 0; w < run.scenario.launch.num_warps(); ++w) {
        warps_.push_back(std::make_unique<WarpProcess>(*this, w));
        sc_core::sc_spawn_options opts;
        opts.set_stack_size(WarpProcess::kStackBytes);
        WarpProcess* warp = warps_.back().get();
        sc_core::sc_spawn([warp] { warp->run(); }, fmt::format("warp{}", w).c_str(), &opts);
    }
}

CtaModule::~CtaModule() = default;

WgmmaState& CtaModule::wgmma(int group) {
    if (wgmma_.empty()) wgmma_.assign(static_cast<size_t>((run_.scenario.launch.num_warps() + 3) / 4),
                                      WgmmaState(run_.scenario.accumulators));
    return wgmma_.at(group);
}

CpAsyncUnit& CtaModule::cp_unit() {
    if (!cp_unit_) throw std::logic_error("CtaModule::cp_unit: the program has no cp.async op");
    return *cp_unit_;
}

Cluster* CtaModule::tracking_cluster() {
    if (!cluster_resolved_) {
        Cluster* c = cluster_of(*this);
        tracking_cluster_ = c && c->tracking() ? c : nullptr;
        cluster_resolved_ = true;
    }
    return tracking_cluster_;
}

bool CtaModule::barrier_action(int barrier, BarrierAction action, int64_t amount, int thread,
                               const Op& op, const EventSite& site) {
    BarrierSlot& b = barriers_.at(barrier);
    bool completed = false;
    const bool arrival = action == BarrierAction::arrive || action == BarrierAction::async_arrive ||
                         action == BarrierAction::remote_arrive;
    if (arrival) check_observed_before_arrive(b, op, site);
    if (action == BarrierAction::init && !b.state.live()) check_init_storage(*this, barrier, thread, op, site);  // A11
    try {
        switch (action) {
            case BarrierAction::init: b.state.init(amount); break;
            case BarrierAction::inval: b.state.inval(); break;
            case BarrierAction::arrive:
            case BarrierAction::async_arrive:
            case BarrierAction::remote_arrive: completed = b.state.arrive(amount); break;
            case BarrierAction::expect_tx: completed = b.state.expect_tx(amount); break;
            case BarrierAction::complete_tx: completed = b.state.complete_tx(amount); break;
            case BarrierAction::increment_pending: b.state.increment_pending(); break;
        }
    } catch (const MbarrierError& e) {
        const std::string message = fmt::format("{}: barrier {}: {}", op_title(op), b.name, e.what());
        // The tx-count leaving its range is undefined in PTX; an H200 traps on it
        // (teach/05_tx_overflow: CUDA_ERROR_LAUNCH_FAILED), so the model predicts a fault.
        if (HazardRules::get(e.rule()).outcome == Outcome::fault) {
            fault(op, site, message, e.rule());
        } else {
            hazard(op, site, e.rule(), message, {{"barrier", b.name}});
        }
        return false;
    }
    if (action == BarrierAction::init || action == BarrierAction::inval) {
        barriers_.set_live(barrier, action == BarrierAction::init);
        if (action == BarrierAction::inval) note_inval_storage(*this, barrier, thread, op);
        b.releasing.clear();
        b.released.clear();
        b.reset_observations();
    }
    // Arrivals are release operations: what the arriving thread knows is published
    // with the phase, for the waiters that observe it. A cp.async arrive publishes the
    // thread's copies (its cp.async agent), a complete_tx the bytes the TMA landed.
    if (action == BarrierAction::arrive) tracker_.release_into(thread, b.releasing);
    if (action == BarrierAction::async_arrive) tracker_.release_into(tracker_.cp_agent(thread), b.releasing);
    if (action == BarrierAction::complete_tx) {
        tracker_.release_into(tracker_.tma_agent(barrier), b.releasing);
        run_.log.add_complete_tx(site, now_cycles(), b.name, amount, b.state.tx_count(), b.state.pending());
    }
    if (Cluster* c = tracking_cluster())
        c->on_barrier_action(*this, barrier, action, thread, completed ? b.state.phase() - 1 : -1);
    if (completed) {
        const int64_t phase = b.state.phase() - 1;
        b.phase_bytes.set(phase, b.state.last_phase_bytes());
        // Moved, not copied: `releasing` starts again empty (release_into sizes it).
        assign_newest(b.released, phase, b.releasing.empty() ? tracker_.empty_clock() : std::move(b.releasing));
        b.releasing.clear();
        b.released.erase(b.released.begin(), b.released.lower_bound(phase - kPhasesKept + 1));
        log_barrier_state(b, site, "phase_flip", {{"phase", std::to_string(phase)}});
    }
    b.changed.notify(sc_core::SC_ZERO_TIME);
    return true;
}

size_t CtaModule::open_credits(int barrier, const TmaRequest::ChunkRun& chunks, size_t first) {
    if (tracking_cluster() || barrier < 0 || barrier >= barriers_.size()) return 0;
    Mbarrier probe = barriers_.at(barrier).state;
    size_t n = 0;
    for (size_t i = first; i < chunks.size(); ++i, ++n) {
        const TmaRequest::Chunk c = chunks[i];
        if (!tracker_.covers(c.first, c.last - c.first + 1) || !probe.credit_stays_open(c.credit)) break;
        probe.complete_tx(c.credit);
    }
    return n;
}

TmaRequest::ChunkRun CtaModule::register_tma_landing(int barrier, int issuer, int op_id, int64_t first,
                                                     int64_t last, int64_t bytes) {
    const int64_t chunk = std::max<int64_t>(16, std::llround(run_.timing.tma_complete_tx_chunk_bytes));
    int first_write_id = -1;
    for (int64_t done = 0; done < bytes; done += chunk) {
        AsyncWrite w;
        w.kind = AsyncWrite::Kind::tma;
        w.first = first + done;
        w.last = done + chunk >= bytes ? last : std::min(last, first + done + chunk - 1);
        w.agent = tracker_.tma_agent(barrier);
        w.op = op_id;
        w.issuer = issuer;
        w.barrier = barrier;
        w.issue_phase = barriers_.at(barrier).state.phase();
        const int id = async_writes_.add(w);
        if (done == 0) first_write_id = id;
        else if (id != first_write_id + static_cast<int>(done / chunk))
            throw std::logic_error("model: a load's chunks were not registered as consecutive writes");
    }
    async_writes_.prune(tracker_);
    return TmaRequest::ChunkRun(first, last, bytes, chunk, first_write_id);
}

void CtaModule::complete_tx_run(int barrier, const TmaRequest::ChunkRun& chunks, size_t first,
                                size_t count, const EventSite& site) {
    BarrierSlot& b = barriers_.at(barrier);
    int64_t bytes = 0;
    for (size_t i = first; i < first + count; ++i) {
        const int64_t credit = chunks[i].credit;
        b.state.complete_tx(credit);
        bytes += credit;
    }
    // One release for all: the row the agent joins is the same each time and the phase's
    // entry for it ends at its clock after the last (the earlier releases' ticks are made).
    tracker_.release_into(tracker_.tma_agent(barrier), b.releasing);
    run_.log.add_complete_tx(site, now_cycles(), b.name, bytes, b.state.tx_count(), b.state.pending(),
                             static_cast<int64_t>(count));
    b.changed.notify(sc_core::SC_ZERO_TIME);  // one delta notification, however often asked
}

void CtaModule::check_observed_before_arrive(BarrierSlot& b, const Op& op, const EventSite& site) {
    // A9: this arrive-on lands in phase k+1 = phase(); some wait must have returned true
    // for phase k first. Barriers no op ever waits on are exempt (nobody observes them).
    const int64_t k = b.state.phase() - 1;
    if (!b.state.live() || k < 0 || b.observed_through >= k || !waited_barriers_.count(b.decl)) return;
    if (b.unobserved_reported == k) return;
    b.unobserved_reported = k;
    hazard(op, site, "mbarrier.unobserved_phase",
           HazardRules::message("mbarrier.unobserved_phase",
                                fmt::format("{}: arrive on barrier {} in phase {} before any wait "
                                            "returned true for phase {}", op_title(op), b.name, k + 1, k)),
           {{"barrier", b.name}, {"phase", std::to_string(k)}});
}

BarrierObservations CtaModule::observations() const {
    BarrierObservations o;
    o.observed = [this](int thread, int barrier) { return barriers_.at(barrier).observed_by.at(thread); };
    o.phase_bytes = [this](int barrier, int64_t phase) { return barriers_.at(barrier).phase_bytes.get(phase); };
    return o;
}

void CtaModule::log_barrier_state(const BarrierSlot& b, const EventSite& site, const std::string& what,
                                  std::map<std::string, std::string> detail) {
    detail["barrier"] = b.name;
    detail["tx_count"] = std::to_string(b.state.tx_count());
    detail["pending"] = std::to_string(b.state.pending());
    run_.log.add_model_only(site, what, now_cycles(), std::move(detail));
}

uint64_t CtaModule::sync_arrive(int warp) {
    const uint64_t gen = sync_.arrive(warp);
    try_release_sync();
    return gen;
}

void CtaModule::warp_exited(int warp) {
    sync_.exit(warp);
    try_release_sync();
    if (Cluster* c = cluster_of(*this)) c->on_warp_exit(*this, warp);
}

void CtaModule::try_release_sync() {
    auto warps = sync_.try_release();
    if (!warps) return;
    // barrier.sync orders the generic proxy between all participating threads.
    std::vector<int> threads;
    threads.reserve(warps->size() * 32);
    for (int w : *warps)
        for (int l = 0; l < 32 && w * 32 + l < num_threads(); ++l) threads.push_back(w * 32 + l);
    tracker_.cta_sync(threads);
    // Only a tracking cluster follows CTA syncs (on_cta_sync returns at once otherwise): the
    // cached pointer, not the fabric's cluster, whose lines were cold at every sync of 132 CTAs.
    if (Cluster* c = tracking_cluster()) c->on_cta_sync(*this, threads);
    sync_changed_.notify(sc_core::SC_ZERO_TIME);
}

void CtaModule::report(Outcome outcome, const Op& op, const EventSite& site, const std::string& rule,
                       const std::string& message, std::map<std::string, std::string> detail) {
    Diagnostic d;
    d.outcome = outcome;
    d.rule = rule;
    d.op = op.id;
    d.iters = site.iters;
    d.cta = cta_;
    d.message = message;
    d.detail = std::move(detail);
    run_.log.report(std::move(d), site, now_cycles());
}

void CtaModule::hazard(const Op& op, const EventSite& site, const std::string& rule,
                       const std::string& message, std::map<std::string, std::string> detail) {
    if (!op.label.empty()) detail["label"] = op.label;
    report(Outcome::hazard, op, site, rule, message, std::move(detail));
}

void CtaModule::hazard_once(const Op& op, const EventSite& site, const std::string& rule,
                            const std::string& message, std::map<std::string, std::string> detail) {
    if (!reported_.insert({op.id, site.iters, rule}).second) return;
    hazard(op, site, rule, message, std::move(detail));
}

void CtaModule::fault(const Op& op, const EventSite& site, const std::string& message, const std::string& rule) {
    report(Outcome::fault, op, site, rule, message, {});
    if (run_.abort_run) run_.abort_run();
}

bool CtaModule::all_warps_finished() const {
    for (const auto& w : warps_)
        if (!w->finished()) return false;
    return true;
}

void CtaModule::wake_for_abort() {
    barriers_.notify_all();
    sync_changed_.notify(sc_core::SC_ZERO_TIME);
    named_changed_.notify(sc_core::SC_ZERO_TIME);  // warps in bar.sync unwind too (else they leak)
    engine_->wake_for_abort();
    if (cp_unit_) cp_unit_->wake_for_abort();
}

std::vector<MemoryImage> CtaModule::shared_images() const {
    std::vector<MemoryImage> out;
    for (const auto& buf : run_.scenario.shared) {
        for (int64_t i = 0; i < buf.count(); ++i) {
            MemoryImage m;
            m.name = buf.array != 0 ? fmt::format("{}[{}]", buf.name, i) : buf.name;
            m.space = "shared";
            m.cta = cta_;
            const int64_t off = run_.layout.offset_of(buf.name, i);
            m.bytes = smem_.copy_range(static_cast<size_t>(off), static_cast<size_t>(buf.size_bytes()));
            out.push_back(std::move(m));
        }
    }
    return out;
}

}  // namespace tmasim::model
