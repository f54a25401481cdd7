#pragma once
#include "scenarios/ir.h"

namespace tmasim {

// Semantic checks after loading: names resolve, ranges hold, tensor maps obey the
// cuTensorMapEncodeTiled rules, and every expression evaluates in range for every loop
// iteration. Throws ScenarioError at the offending key.
void validate_scenario(const Scenario& sc);

}  // namespace tmasim
