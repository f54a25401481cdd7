#pragma once
// What `tmasim run` adds for a learner after the summary: the scenario's own explanation,
// and for each rule a run broke, where in the file, why the rule exists and how to fix it.
#include <ostream>
#include <string>

#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::cli {

// "about:" with the scenario's summary, then one block per distinct (rule, op) diagnostic.
void print_teaching(const Scenario& scenario, const RunResult& result, std::ostream& out);

// Why `d`'s rule exists, and the fix `tmasim run` prints for it: in the scenario's own terms
// where the model gave enough detail, else the rule's general fix. "" for a rule without
// help (a device-side report). The HTML report and --json say the same.
std::string diagnostic_why(const Diagnostic& d);
std::string diagnostic_fix(const Scenario& scenario, const Diagnostic& d);

// `tmasim explain RULE`: the rule's statement, outcome, reference, why and fix. Returns
// false for an id not in the rule table (the caller lists the known ids).
bool print_rule_explanation(const std::string& id, std::ostream& out);
void print_rule_list(std::ostream& out);

// Wraps `text` at `width` columns, continuation lines indented by `indent` spaces.
std::string wrap_text(const std::string& text, size_t indent, size_t width = 100);

}  // namespace tmasim::cli
