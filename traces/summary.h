#pragma once
// A few readable lines about a run, for the terminal (tmasim run): what ran where, the
// outcome and why, how much happened per op, and the final memory's hashes.
#include <iosfwd>

#include "scenarios/run_result.h"
#include "traces/trace_writer.h"

namespace tmasim {

// The diagnostics merged per (rule, op, CTA) with the iterations each covers; with
// `all_instances`, one entry per instance as the trace has them.
void print_summary(const RunResult& result, std::ostream& out, const OpNames& names = {},
                   bool all_instances = false);

}  // namespace tmasim
