#pragma once
// A diagnostic's first line, in the form compilers print and CI problem matchers read:
//     scenarios/catalog/teach/07_store_no_fence.yaml:18:5: hazard: proxy.generic_to_async: <message>
// The place is the op's line in the file the user edits: a program op's line in the
// scenario, a kernel op's line in its .cu (or .ptx) source. The severity word is the
// diagnostic's outcome (hazard, hang, fault), as the loader's refusals say "error".
#include <string>

#include "scenarios/ir.h"
#include "scenarios/run_result.h"
#include "traces/diagnostic_groups.h"

namespace tmasim::cli {

// Where a diagnostic points. An op's line; without an op, the barrier its detail names, else
// the kernel's `cuda`/`ptx` key, else the scenario's `expect`, else the file's first line.
SourceLoc diagnostic_place(const Scenario& scenario, const Diagnostic& d);

// "file:line:col: hazard: RULE: message", with " [op #5, iterations 0-2]" for a merged group;
// the severity word coloured when `color` (cli/term_color.h).
std::string diagnostic_headline(const Scenario& scenario, const DiagnosticGroup& g, bool color = false);

}  // namespace tmasim::cli
