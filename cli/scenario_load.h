#pragma once
// A scenario as the commands use it: loaded and validated, and for a kernel scenario bound to
// its kernel (its PTX read or compiled, its params checked, its instructions listed as ops).
#include <string>

#include "scenarios/ir.h"

namespace tmasim::cli {

// Throws ScenarioError (exit 2) for what the loader or the binding refuses.
Scenario load_bound_scenario(const std::string& path);

}  // namespace tmasim::cli
