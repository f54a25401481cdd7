#pragma once
// How much work a run of a scenario is, counted before it runs, so a valid scenario that
// no time limit would let finish (a bomb) is refused at once; the model's time limit
// (model/core/run_budget.h) stops the rest. A thread executing an op
// is 8 units, 4 bytes an op moves or computes 1 unit. Measured on a loaded 2-core machine:
// about 0.77M units/s for per-thread ops and for compute alike (13.1M units in 17 s, 3.7M
// in 4.7 s); the catalog's largest scenario is 1.1M units.
#include <cstdint>

#include "scenarios/ir.h"

namespace tmasim {

// The work of a whole run (every CTA, every loop iteration), stopping early once it
// passes `limit`. Throws ScenarioError when it does, at the outermost loop that takes it
// past the limit (at the op itself when no loop does), naming `flag` as the way to raise it.
int64_t check_work_limit(const Scenario& scenario, int64_t limit, const std::string& flag);

}  // namespace tmasim
