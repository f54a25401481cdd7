#pragma once
// `tmasim run --json`: the run (traces/json_output.h) plus what the CLI decided about it
// (the expectation check, the trace file, the exit code); for a batch, one document with
// a row per scenario. Shapes: traces/FORMAT.md, "JSON output".
#include <string>
#include <vector>

#include "cli/batch_run.h"
#include "cli/expectation.h"
#include "traces/json_output.h"

namespace tmasim::cli {

OrderedJson expectation_json(const ExpectationCheck& check);
OrderedJson single_run_json(const Scenario& scenario, const RunResult& result, const ExpectationCheck& check,
                            const std::string& trace_path, int exit_code, bool all_instances = false);
// A single run that did not happen: `status` "skipped" (the run cannot happen on this machine:
// no CUDA driver, no GPU, another GPU than the scenario's) or "error" (a scenario refused, a
// codegen or JIT error), `why` the one-line reason stderr also gets.
OrderedJson failed_run_json(const std::string& scenario_file, const std::string& backend, const std::string& status,
                            const std::string& why, int exit_code);
OrderedJson batch_json(const std::vector<BatchRow>& rows, const BatchOptions& options, int exit_code);

}  // namespace tmasim::cli
