#pragma once
// The tmasim subcommands. Each add_* registers its options on `app`; when the user picks
// it, CLI11's callback stores the work in `action`, which main() runs outside the parser
// so every error goes through main's one exit-code policy.
#include <functional>

#include <CLI/CLI.hpp>

namespace tmasim::cli {

// 0: ok. 1: the run or comparison completed and did not match (outcome, expectation,
// bytes). 2: no verdict could be reached: bad input, usage error, missing driver, an
// internal error. Scripts can trust 1 to mean a real mismatch.
enum ExitCode { kOk = 0, kMismatch = 1, kBadInput = 2 };

using Action = std::function<int()>;

void add_validate_command(CLI::App& app, Action& action);
void add_run_command(CLI::App& app, Action& action);
void add_diff_command(CLI::App& app, Action& action);
void add_export_command(CLI::App& app, Action& action);
void add_report_command(CLI::App& app, Action& action);
void add_codegen_command(CLI::App& app, Action& action);
void add_bench_command(CLI::App& app, Action& action);
void add_explain_command(CLI::App& app, Action& action);
void add_schema_command(CLI::App& app, Action& action);
void add_sweep_command(CLI::App& app, Action& action);
void add_layout_command(CLI::App& app, Action& action);
void add_capture_command(CLI::App& app, Action& action);

}  // namespace tmasim::cli
