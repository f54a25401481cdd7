#pragma once
// Does a run meet its scenario's `expect`? The model is held to all of it (outcome, rule,
// op). The device is held to what hardware can show: it never sees a hazard (stale bytes
// may or may not appear) and reports no rule ids, so those parts become notes.
#include <string>
#include <vector>

#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::cli {

struct ExpectationCheck {
    bool passed = true;
    bool checked = true;             // false: nothing of `expect` is observable on this backend
    std::string expected;            // "hazard proxy.generic_to_async at op 'store'"
    std::string got;                 // "hazard proxy.generic_to_async at #8 tma.store (store)"
    std::vector<std::string> notes;  // what was not checked, and why; why it failed
};

ExpectationCheck check_expectation(const Scenario& scenario, const RunResult& result, bool on_device);

}  // namespace tmasim::cli
