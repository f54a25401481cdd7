#pragma once
#include <cstddef>
#include <string>

#include "scenarios/ir.h"

namespace tmasim {

// Scenario files are a few KB; anything past this is refused before it is parsed.
constexpr size_t kMaxScenarioBytes = size_t(1) << 20;

// Loads and validates a scenario file. Throws ScenarioError (file:line:col, key, what is
// allowed) on any unknown key, wrong type, bad enum, out-of-range value or dangling name.
Scenario load_scenario_file(const std::string& path);
// Same, from text; `path` is used in messages only.
Scenario load_scenario_text(const std::string& text, const std::string& path);

}  // namespace tmasim
