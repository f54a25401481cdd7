#pragma once
#include <string>

#include "scenarios/ir.h"

namespace tmasim {

// Loads and validates a scenario file. Throws ScenarioError (file:line:col, key, what is
// allowed) on any unknown key, wrong type, bad enum, out-of-range value or dangling name.
Scenario load_scenario_file(const std::string& path);
// Same, from text; `path` is used in messages only.
Scenario load_scenario_text(const std::string& text, const std::string& path);

}  // namespace tmasim
