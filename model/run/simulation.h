#pragma once
// One run of a scenario on the SystemC model: builds every CTA, simulates until nothing
// can progress, turns unfinished warps into a hang report, tears the threads down and
// collects events, diagnostics and final memory. Must be built and destroyed inside a
// fresh SystemC simulation context (see run_model.cpp).
#include <memory>
#include <systemc>
#include <vector>

#include "model/core/arch_config.h"
#include "model/core/l2_at_launch.h"
#include "model/core/trace_words_at.h"
#include "model/sm/run_context.h"
#include "scenarios/ir.h"
#include "scenarios/layout.h"
#include "scenarios/run_result.h"

namespace tmasim::model {

class CtaModule;
class ClusterFabric;
namespace kernel {
struct KernelImage;
}

class Simulation {
public:
    // `trace`: predict the kernel the device executor times at that level (none: untraced).
    // `l2`: what the launch finds in L2 (model/core/l2_at_launch.h).
    // `trace_words`: where that kernel keeps its clock words (model/core/trace_words_at.h).
    // `ctas_together`: simulate the CTAs together even where they could run one after another
    // (model/run/cta_schedule.h); the result is the same, only slower at many CTAs.
    Simulation(const Scenario& s, const ArchConfig& arch, TraceLevel trace = TraceLevel::none,
               L2AtLaunch l2 = L2AtLaunch::inputs, TraceWordsAt trace_words = TraceWordsAt::automatic,
               bool ctas_together = false);
    ~Simulation();

    // Outcome, events, diagnostics and memory; the caller fills the provenance.
    // `unchanged_input_bytes`: ModelOptions::unchanged_input_bytes.
    RunResult run(bool unchanged_input_bytes = false);
    // Cycles from kernel entry to the last warp's exit; -1 when the run hung or faulted.
    int64_t kernel_span_cycles() const { return span_cycles_; }
    // A kernel scenario's PTX instructions executed, per warp (0 for an op scenario).
    uint64_t kernel_warp_instructions() const;
    uint64_t kernel_thread_instructions() const;
    // Where the predicted traced kernel keeps its clock words, as resolved from `trace_words`.
    bool trace_words_in_shared() const { return context_.trace_words_in_shared; }
    // Whether every CTA streams through an even share of the chip's HBM channel
    // (RunContext::chip_share), and whether this run simulated its CTAs one after another.
    bool even_hbm_shares() const { return !context_.chip_share.empty(); }
    bool ctas_apart() const { return !cta_contexts_.empty(); }
    // After run(): the CTAs, simulated apart, turned out to touch one another's L2 lines or
    // reported a hazard, a hang or a fault, whose order in time only the CTAs simulated
    // together tell; run() returned nothing, and the scenario is to run with ctas_together.
    bool needs_ctas_together() const { return needs_together_; }
    // Before run(): the budget that may stop it (RunBudget), which hears of the events it expects.
    void set_budget(RunBudget* budget);

private:
    void abort_run();
    void simulate_each_cta();  // CTA after CTA, each in its context, until nothing can progress
    void unwind_threads();

    // A kernel scenario's kernel, parsed and decoded before anything else: its shared memory
    // sizes the CTAs'.
    std::unique_ptr<kernel::KernelImage> kernel_;
    SharedLayout layout_;
    RunContext context_;
    // CTAs simulated apart: the SystemC context of each, by CTA index (CTA 0's is the one the
    // Simulation was made in, the others its own); empty when they run together.
    std::vector<sc_core::sc_simcontext*> cta_contexts_;
    bool needs_together_ = false;
    std::vector<std::unique_ptr<CtaModule>> ctas_;
    int64_t span_cycles_ = -1;
    int64_t expected_events_ = 0;  // the warps' estimate, summed (WarpProcess::expected_events)
    std::unique_ptr<ClusterFabric> fabric_;  // after ctas_: destroyed first, it points into them
};

}  // namespace tmasim::model
