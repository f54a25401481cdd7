#pragma once
// A few readable lines about a run, for the terminal (tmasim run): what ran where, the
// outcome and why, how much happened per op, and the final memory's hashes.
#include <functional>
#include <iosfwd>
#include <string>

#include "scenarios/run_result.h"
#include "traces/diagnostic_groups.h"
#include "traces/trace_writer.h"

namespace tmasim {

// A diagnostic's first line as the caller words it ("file:line:col: hazard: RULE: message",
// cli/diagnostic_lines.h: only the CLI knows the scenario's lines); empty: none.
using DiagnosticHeadline = std::function<std::string(const DiagnosticGroup&)>;

// The diagnostics merged per (rule, op, CTA) with the iterations each covers; with
// `all_instances`, one entry per instance as the trace has them. With `headline`, each
// diagnostic's entry starts with the line it returns.
void print_summary(const RunResult& result, std::ostream& out, const OpNames& names = {},
                   bool all_instances = false, const DiagnosticHeadline& headline = {});

}  // namespace tmasim
