#pragma once
// Public entry point of the SystemC model: run one scenario, get the backend-neutral
// RunResult (scenarios/run_result.h). Safe to call many times in one process: every
// call builds its modules in a fresh SystemC simulation context.
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "scenarios/ir.h"
#include "scenarios/run_result.h"
#include "model/core/l2_at_launch.h"
#include "model/core/run_budget.h"
#include "model/core/trace_words_at.h"
#include "scenarios/trace_level.h"

namespace tmasim::model {

// Where the arch configs are: $TMASIM_ARCH_DIR, else <exe>/../share/tmasim/arch when it
// exists (an installed tmasim), else the source tree's model/arch (a build tree).
std::string default_arch_dir();

struct ModelOptions {
    // A file <arch_dir>/<arch>.yaml; empty: the scenario's own GPU generation (h100-sxm for
    // sm_90, b200 for sm_100).
    std::string arch;
    std::string arch_dir = default_arch_dir();
    uint64_t seed = 0;                     // recorded in the provenance; the model is deterministic
    // Which ops pay the device executor's tracing cost: none predicts the kernel as it runs;
    // all or waits, the kernel `tmasim run --backend device --trace` would time.
    TraceLevel trace = TraceLevel::none;
    // Bound on the run's work (scenarios/work_estimate.h counts it before the run): only a bomb,
    // a run no time limit would let finish, is refused at once. 0: no bound on work, nor on the
    // events the run holds in memory (tmasim run --max-work 0).
    int64_t max_work = kDefaultMaxWork;
    // The run's budget (model/core/run_budget.h), which stops a run past it and never changes
    // one: seconds of wall-clock time (0: none), and trace events held in memory.
    double time_limit_seconds = kDefaultTimeLimitSeconds;
    int64_t max_events = kDefaultMaxEvents;
    // Told once a second how far the run is, from its fifth second on (the CLI's progress line).
    RunBudget::ProgressSink progress;
    // What the launch finds in L2 (model/core/l2_at_launch.h). Default: the global
    // tensors as the device executor leaves them, copied in by the host just before.
    L2AtLaunch l2 = L2AtLaunch::inputs;
    // A traced prediction's clock words (model/core/trace_words_at.h): where the recorded run kept
    // them (its trace header's trace_words_in), or auto.
    TraceWordsAt trace_words = TraceWordsAt::automatic;
    // false: a global tensor of at least kXxh64MinBytes that the run never wrote nor needed
    // whole comes back as its size and hash only (MemoryImage::digest_only), as its trace
    // keeps it; true: with its bytes (tmasim run --memory-bytes all).
    bool unchanged_input_bytes = false;
    // Simulate the CTAs together even where they could run one after another
    // (model/run/cta_schedule.h): the same result, slower at many CTAs (for tests and checks).
    bool ctas_together = false;
    // A 132-CTA stream of 128 tiles through 4 warps is ~105M units and runs in about a second;
    // a loop of computes, the slowest work per unit measured, ~8M units a second. 10G units is
    // more than a minute at any rate measured: refused before it runs.
    static constexpr int64_t kDefaultMaxWork = 10000000000;
    static constexpr double kDefaultTimeLimitSeconds = 60;
    // ~200 bytes an event with its loop indices and details: 4 GB, 35 times the 132-CTA stream's.
    static constexpr int64_t kDefaultMaxEvents = 20000000;
};

}  // namespace tmasim::model

namespace tmasim {

using model::ModelOptions;

// A run its budget stopped (ModelOptions::time_limit_seconds, max_events): the message names
// the limit and the option that raises it.
struct RunStopped : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Throws RunStopped for a run past its budget, std::runtime_error for an unknown arch, an invalid arch config, or an arch whose
// GPU cannot run the scenario (an sm_100 scenario on an sm_90 config; wgmma on sm_100).
RunResult run_model(const Scenario& scenario, const ModelOptions& options = {});

}  // namespace tmasim
