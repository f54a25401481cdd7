#include "model/run/simulation.h"

#include <algorithm>

#include <fmt/format.h>
#include <systemc>

#include "model/core/asan_stacks.h"
#include "model/kernel/kernel_image.h"
#include "model/sm/cluster_fabric.h"
#include "model/sm/cta_module.h"
#include "model/run/cta_schedule.h"
#include "model/run/hang_report.h"
#include "model/sm/warp_process.h"

namespace tmasim::model {

namespace {
// Back on the process's own stack, whose bounds SystemC left wrong in ASan (asan_stacks.h).
void simulate_until_idle() {
    try {
        sc_core::sc_start();
    } catch (...) {
        after_simulation();
        throw;
    }
    after_simulation();
}

// A launch after an identical one: every global tensor it reads was read before, so it is in
// L2 where all of them fit together (a stream larger than L2 evicts its own lines before it
// reads them again; sm_placement_probe.cu: 32 MiB streamed again ran from L2, 64 MiB did not).
double global_footprint(const Scenario& s) {
    double footprint = 0;
    for (const GlobalTensor& g : s.globals) footprint += static_cast<double>(g.size_bytes());
    return footprint;
}

void warm_l2(const Scenario& s, double l2_bytes, GlobalMemory& global) {
    if (global_footprint(s) > l2_bytes) return;
    for (const GlobalTensor& g : s.globals)
        if (g.size_bytes() > 0) global.touch(g.name, 0, g.size_bytes() - 1);
}

void make_current(sc_core::sc_simcontext* c) {
    sc_core::sc_curr_simcontext = c;
    sc_core::sc_default_global_context = c;
}

}  // namespace

Simulation::Simulation(const Scenario& s, const ArchConfig& arch, TraceLevel trace, L2AtLaunch l2,
                       TraceWordsAt trace_words, bool ctas_together)
    : kernel_(s.is_kernel() ? kernel::KernelImage::make(s) : nullptr),
      layout_(kernel_ ? kernel_->shared_layout() : compute_shared_layout(s)),
      context_(s, arch, layout_, trace) {
    context_.kernel = kernel_.get();
    context_.abort_run = [this] { abort_run(); };
    context_.trace_words_in_shared = trace_words == TraceWordsAt::automatic ? !context_.uses_cp_async
                                                                             : trace_words == TraceWordsAt::shared;
    if (l2 == L2AtLaunch::warm) warm_l2(s, arch.timing().l2_bytes, context_.global);
    if (l2 == L2AtLaunch::inputs) context_.inputs_in_l2 = global_footprint(s) <= arch.timing().l2_bytes;
    const int n = s.launch.num_ctas();
    const bool may_run_apart = !why_ctas_run_together(s);
    if (may_run_apart) {  // even shares however the CTAs are simulated: the same result either way
        const double share = arch.timing().hbm_bytes_per_cycle / n;
        context_.chip_share.assign(static_cast<size_t>(n), DramChannel(share));
    }
    sc_core::sc_simcontext* const made_in = sc_core::sc_curr_simcontext;
    if (may_run_apart && !ctas_together) {
        context_.global.note_touching_ctas();
        for (int c = 0; c < n; ++c) cta_contexts_.push_back(c == 0 ? made_in : new sc_core::sc_simcontext());
    }
    for (int c = 0; c < n; ++c) {
        if (!cta_contexts_.empty()) make_current(cta_contexts_[static_cast<size_t>(c)]);
        ctas_.push_back(std::make_unique<CtaModule>(fmt::format("cta{}", c).c_str(), context_, c));
    }
    make_current(made_in);
    // The log sized for the run up front (an estimate with a margin; beyond it, it grows).
    int64_t expected = 0;
    for (auto& c : ctas_)
        for (auto& w : c->warps()) expected += w->expected_events();
    constexpr int64_t kMostReserved = int64_t{1} << 22;  // 640 MB of address space, touched only as used
    context_.log.reserve(static_cast<size_t>(std::min(expected + expected / 8, kMostReserved)));
    expected_events_ = expected;
    std::vector<CtaModule*> ctas;
    for (auto& c : ctas_) ctas.push_back(c.get());
    fabric_ = std::make_unique<ClusterFabric>("clusters", context_, ctas);
    context_.fabric = fabric_.get();
}

Simulation::~Simulation() {
    // The modules first, then the contexts they were made in (CTA 0's is the caller's).
    fabric_.reset();
    ctas_.clear();
    sc_core::sc_simcontext* const made_in = cta_contexts_.empty() ? nullptr : cta_contexts_.front();
    for (size_t c = 1; c < cta_contexts_.size(); ++c) {
        make_current(cta_contexts_[c]);
        delete cta_contexts_[c];
    }
    if (made_in) make_current(made_in);
}

// Blocked threads (hung warps, idle engines) unwind, so the simulation contexts can be
// destroyed with no coroutine still waiting.
void Simulation::unwind_threads() {
    abort_run();
    simulate_each_cta();
}

void Simulation::simulate_each_cta() {
    if (cta_contexts_.empty()) {
        simulate_until_idle();
        return;
    }
    for (sc_core::sc_simcontext* c : cta_contexts_) {
        make_current(c);
        // A context with nothing left to do would only warn (SystemC's W571).
        if (c->elaboration_done() && !sc_core::sc_pending_activity()) continue;
        simulate_until_idle();
    }
    make_current(cta_contexts_.front());
}

void Simulation::set_budget(RunBudget* budget) {
    context_.budget = budget;
    if (budget) budget->begin_attempt(&context_.log, expected_events_, [this] { abort_run(); });
}

void Simulation::abort_run() {
    context_.aborted = true;
    for (auto& c : ctas_) c->wake_for_abort();
    if (fabric_) fabric_->wake_for_abort();
}

RunResult Simulation::run(bool unchanged_input_bytes) {
    simulate_each_cta();
    if (ctas_apart()) {
        bool all_finished = true;
        for (auto& c : ctas_) all_finished = all_finished && c->all_warps_finished();
        needs_together_ = !all_finished || context_.aborted || !context_.log.diagnostics().empty() ||
                          context_.global.ctas_shared_lines();
        if (needs_together_) {
            unwind_threads();
            return {};
        }
    }
    if (!context_.aborted) {
        for (auto& c : ctas_) {
            if (c->all_warps_finished()) continue;
            std::vector<Diagnostic> hangs = HangReport::describe(*c);
            fabric_->explain_hangs(*c, hangs);  // cluster.wait hangs, and each CTA's rank
            for (auto& d : hangs) context_.log.report(std::move(d));
        }
        unwind_threads();
    }
    RunResult r;
    r.outcome = context_.log.outcome();
    if (r.outcome != Outcome::hang && r.outcome != Outcome::fault) span_cycles_ = context_.last_warp_exit;
    r.diagnostics = context_.log.diagnostics();
    r.events = context_.log.take_sorted_events();
    r.events_sorted = true;  // by trace_less, whose leading keys are the trace order's
    r.memory = context_.global.take_images(unchanged_input_bytes);
    for (auto& c : ctas_)
        for (auto& m : c->shared_images()) r.memory.push_back(std::move(m));
    for (auto& m : context_.snapshots.images()) r.memory.push_back(std::move(m));
    if (kernel_)
        for (size_t op = 0; op < kernel_->op_thread.size(); ++op)
            if (kernel_->op_thread[op] >= 0) r.single_thread_ops[static_cast<int>(op)] = kernel_->op_thread[op];
    return r;
}

uint64_t Simulation::kernel_warp_instructions() const { return kernel_ ? kernel_->warp_instructions : 0; }
uint64_t Simulation::kernel_thread_instructions() const { return kernel_ ? kernel_->thread_instructions : 0; }

}  // namespace tmasim::model
