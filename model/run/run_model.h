#pragma once
// Public entry point of the SystemC model: run one scenario, get the backend-neutral
// RunResult (scenarios/run_result.h). Safe to call many times in one process: every
// call builds its modules in a fresh SystemC simulation context.
#include <cstdint>
#include <string>

#include "scenarios/ir.h"
#include "scenarios/run_result.h"
#include "model/core/l2_at_launch.h"
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
    // Bound on the run's work (scenarios/work_estimate.h counts it before the run): a valid scenario
    // can otherwise keep the model busy for hours. 0: no bound (tmasim run --max-work 0).
    int64_t max_work = kDefaultMaxWork;
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
    static constexpr int64_t kDefaultMaxWork = 100000000;
};

}  // namespace tmasim::model

namespace tmasim {

using model::ModelOptions;

// Throws std::runtime_error for an unknown arch, an invalid arch config, or an arch whose
// GPU cannot run the scenario (an sm_100 scenario on an sm_90 config; wgmma on sm_100).
RunResult run_model(const Scenario& scenario, const ModelOptions& options = {});

}  // namespace tmasim
