#pragma once
// One run of a scenario on the SystemC model: builds every CTA, simulates until nothing
// can progress, turns unfinished warps into a hang report, tears the threads down and
// collects events, diagnostics and final memory. Must be built and destroyed inside a
// fresh SystemC simulation context (see run_model.cpp).
#include <memory>
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

class Simulation {
public:
    // `trace`: predict the kernel the device executor times at that level (none: untraced).
    // `l2`: what the launch finds in L2 (model/core/l2_at_launch.h).
    // `trace_words`: where that kernel keeps its clock words (model/core/trace_words_at.h).
    Simulation(const Scenario& s, const ArchConfig& arch, TraceLevel trace = TraceLevel::none,
               L2AtLaunch l2 = L2AtLaunch::inputs, TraceWordsAt trace_words = TraceWordsAt::automatic);
    ~Simulation();

    // Outcome, events, diagnostics and memory; the caller fills the provenance.
    // `unchanged_input_bytes`: ModelOptions::unchanged_input_bytes.
    RunResult run(bool unchanged_input_bytes = false);
    // Cycles from kernel entry to the last warp's exit; -1 when the run hung or faulted.
    int64_t kernel_span_cycles() const { return span_cycles_; }
    // Where the predicted traced kernel keeps its clock words, as resolved from `trace_words`.
    bool trace_words_in_shared() const { return context_.trace_words_in_shared; }

private:
    void abort_run();

    SharedLayout layout_;
    RunContext context_;
    std::vector<std::unique_ptr<CtaModule>> ctas_;
    int64_t span_cycles_ = -1;
    std::unique_ptr<ClusterFabric> fabric_;  // after ctas_: destroyed first, it points into them
};

}  // namespace tmasim::model
