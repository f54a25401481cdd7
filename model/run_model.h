#pragma once
// Public entry point of the SystemC model: run one scenario, get the backend-neutral
// RunResult (scenarios/run_result.h). Safe to call many times in one process: every
// call builds its modules in a fresh SystemC simulation context.
#include <cstdint>
#include <string>

#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::model {

struct ModelOptions {
    std::string arch = "h100-sxm";         // a file <arch_dir>/<arch>.yaml
    std::string arch_dir = TMASIM_ARCH_DIR;
    uint64_t seed = 0;                     // recorded in the provenance; the model is deterministic
};

}  // namespace tmasim::model

namespace tmasim {

using model::ModelOptions;

// Throws std::runtime_error for an unknown arch or an invalid arch config.
RunResult run_model(const Scenario& scenario, const ModelOptions& options = {});

}  // namespace tmasim
