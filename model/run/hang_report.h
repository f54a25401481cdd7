#pragma once
// Explains a hang: once nothing can progress and warps have not finished, each blocked
// mbarrier wait becomes a diagnostic with the barrier's state (semantics.md A7).
#include <vector>

#include "scenarios/run_result.h"

namespace tmasim::model {

class CtaModule;

class HangReport {
public:
    // One diagnostic per distinct blocked wait (op instance and barrier), in warp order;
    // warps blocked only on a sync or bulk wait are reported when no mbarrier wait is.
    static std::vector<Diagnostic> describe(const CtaModule& cta);
};

}  // namespace tmasim::model
