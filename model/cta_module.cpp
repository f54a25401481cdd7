// sc_spawn (one thread per warp, counted at run time) needs the dynamic-process API.
#define SC_INCLUDE_DYNAMIC_PROCESSES

#include "model/cta_module.h"

#include <fmt/format.h>

#include "model/op_text.h"
#include "model/sim_time.h"
#include "model/warp_process.h"

namespace tmasim::model {

namespace {
constexpr size_t kWarpStackBytes = 512 * 1024;  // loops and std containers on the stack
constexpr int64_t kPhasesKept = 4;              // released clocks older than this can't be observed (A8)

int64_t smem_image_bytes(const SharedLayout& l) { return (l.total_bytes + 1023) / 1024 * 1024; }
}  // namespace

CtaModule::CtaModule(sc_core::sc_module_name name, RunContext& run, int cta)
    : sc_core::sc_module(name),
      run_(run),
      cta_(cta),
      smem_(smem_image_bytes(run.layout), 0),
      tracker_(run.scenario.launch.block, static_cast<int64_t>(smem_.size())),
      barriers_(run.scenario, run.layout),
      groups_(run.scenario.launch.block),
      sync_(run.scenario.launch.num_warps()) {
    engine_ = std::make_unique<TmaEngine>("tma", *this);
    for (int w = 0; w < run.scenario.launch.num_warps(); ++w) {
        warps_.push_back(std::make_unique<WarpProcess>(*this, w));
        sc_core::sc_spawn_options opts;
        opts.set_stack_size(kWarpStackBytes);
        WarpProcess* warp = warps_.back().get();
        sc_core::sc_spawn([warp] { warp->run(); }, fmt::format("warp{}", w).c_str(), &opts);
    }
}

CtaModule::~CtaModule() = default;

bool CtaModule::barrier_action(int barrier, BarrierAction action, int64_t amount, int thread,
                               const Op& op, const EventSite& site) {
    BarrierSlot& b = barriers_.at(barrier);
    bool completed = false;
    try {
        switch (action) {
            case BarrierAction::init: b.state.init(amount); break;
            case BarrierAction::inval: b.state.inval(); break;
            case BarrierAction::arrive: completed = b.state.arrive(amount); break;
            case BarrierAction::expect_tx: completed = b.state.expect_tx(amount); break;
            case BarrierAction::complete_tx: completed = b.state.complete_tx(amount); break;
        }
    } catch (const MbarrierError& e) {
        hazard(op, site, e.rule(), fmt::format("{}: barrier {}: {}", op_title(op), b.name, e.what()),
               {{"barrier", b.name}});
        return false;
    }
    if (action == BarrierAction::init || action == BarrierAction::inval) {
        b.releasing.clear();
        b.released.clear();
    }
    // Arrivals are release operations: what the arriving thread knows is published
    // with the phase, for the waiters that observe it.
    if (action == BarrierAction::arrive) tracker_.release_into(thread, b.releasing);
    if (action == BarrierAction::complete_tx)
        log_barrier_state(b, site, "complete_tx", {{"bytes", std::to_string(amount)}});
    if (completed) {
        const int64_t phase = b.state.phase() - 1;
        b.released[phase] = b.releasing.empty() ? tracker_.empty_clock() : b.releasing;
        b.releasing.clear();
        b.released.erase(b.released.begin(), b.released.lower_bound(phase - kPhasesKept + 1));
        log_barrier_state(b, site, "phase_flip", {{"phase", std::to_string(phase)}});
    }
    b.changed.notify(sc_core::SC_ZERO_TIME);
    return true;
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
}

void CtaModule::try_release_sync() {
    auto warps = sync_.try_release();
    if (!warps) return;
    // barrier.sync orders the generic proxy between all participating threads.
    std::vector<int> threads;
    for (int w : *warps)
        for (int l = 0; l < 32 && w * 32 + l < num_threads(); ++l) threads.push_back(w * 32 + l);
    tracker_.cta_sync(threads);
    sync_changed_.notify(sc_core::SC_ZERO_TIME);
}

void CtaModule::hazard(const Op& op, const EventSite& site, const std::string& rule,
                       const std::string& message, std::map<std::string, std::string> detail) {
    Diagnostic d;
    d.outcome = Outcome::hazard;
    d.rule = rule;
    d.op = op.id;
    d.iters = site.iters;
    d.cta = cta_;
    d.message = message;
    d.detail = std::move(detail);
    if (!op.label.empty()) d.detail["label"] = op.label;
    run_.log.report(std::move(d), site, now_cycles());
}

void CtaModule::fault(const Op& op, const EventSite& site, const std::string& message) {
    Diagnostic d;
    d.outcome = Outcome::fault;
    d.rule = "model.fault";
    d.op = op.id;
    d.iters = site.iters;
    d.cta = cta_;
    d.message = message;
    run_.log.report(std::move(d), site, now_cycles());
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
    engine_->wake_for_abort();
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
            m.bytes.assign(smem_.begin() + off, smem_.begin() + off + buf.size_bytes());
            out.push_back(std::move(m));
        }
    }
    return out;
}

}  // namespace tmasim::model
