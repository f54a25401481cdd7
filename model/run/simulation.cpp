#include "model/run/simulation.h"

#include <algorithm>

#include <fmt/format.h>
#include <systemc>

#include "model/core/asan_stacks.h"
#include "model/sm/cluster_fabric.h"
#include "model/sm/cta_module.h"
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

}  // namespace

Simulation::Simulation(const Scenario& s, const ArchConfig& arch, TraceLevel trace, L2AtLaunch l2,
                       TraceWordsAt trace_words)
    : layout_(compute_shared_layout(s)), context_(s, arch, layout_, trace) {
    context_.abort_run = [this] { abort_run(); };
    context_.trace_words_in_shared = trace_words == TraceWordsAt::automatic ? !context_.uses_cp_async
                                                                             : trace_words == TraceWordsAt::shared;
    if (l2 == L2AtLaunch::warm) warm_l2(s, arch.timing().l2_bytes, context_.global);
    if (l2 == L2AtLaunch::inputs) context_.inputs_in_l2 = global_footprint(s) <= arch.timing().l2_bytes;
    const int n = s.launch.num_ctas();
    for (int c = 0; c < n; ++c)
        ctas_.push_back(std::make_unique<CtaModule>(fmt::format("cta{}", c).c_str(), context_, c));
    // The log sized for the run up front (an estimate with a margin; beyond it, it grows).
    int64_t expected = 0;
    for (auto& c : ctas_)
        for (auto& w : c->warps()) expected += w->expected_events();
    constexpr int64_t kMostReserved = int64_t{1} << 22;  // 640 MB of address space, touched only as used
    context_.log.reserve(static_cast<size_t>(std::min(expected + expected / 8, kMostReserved)));
    std::vector<CtaModule*> ctas;
    for (auto& c : ctas_) ctas.push_back(c.get());
    fabric_ = std::make_unique<ClusterFabric>("clusters", context_, ctas);
    context_.fabric = fabric_.get();
}

Simulation::~Simulation() = default;

void Simulation::abort_run() {
    context_.aborted = true;
    for (auto& c : ctas_) c->wake_for_abort();
    if (fabric_) fabric_->wake_for_abort();
}

RunResult Simulation::run(bool unchanged_input_bytes) {
    simulate_until_idle();
    if (!context_.aborted) {
        bool hung = false;
        for (auto& c : ctas_) {
            if (c->all_warps_finished()) continue;
            hung = true;
            std::vector<Diagnostic> hangs = HangReport::describe(*c);
            fabric_->explain_hangs(*c, hangs);  // cluster.wait hangs, and each CTA's rank
            for (auto& d : hangs) context_.log.report(std::move(d));
        }
        // Blocked threads (hung warps, idle engines) unwind now, so the simulation
        // context can be destroyed with no coroutine still waiting.
        abort_run();
        simulate_until_idle();
        (void)hung;
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
    return r;
}

}  // namespace tmasim::model
