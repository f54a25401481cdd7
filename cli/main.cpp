// tmasim: one command, thin subcommands over the scenarios, model, device and traces
// libraries. See commands.h for the exit-code policy.
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "cli/doc_paths.h"
#include "cli/heap_pages.h"
#include "cli/io/atomic_output.h"
#include "cli/io/printable.h"
#include "cli/stack_pool.h"
#include "scenarios/source_loc.h"
#include "traces/trace_error.h"

namespace {

// Errors are one line, whatever user text they quote (a scalar may hold newlines or a
// terminal escape): cli/io/printable.h. A document they cite is the installed copy where
// tmasim is installed (cli/doc_paths.h).
std::string one_line(const char* what) { return tmasim::cli::cite_docs(tmasim::cli::printable_line(what)); }

}  // namespace

int main(int argc, char** argv) {
    using namespace tmasim::cli;
    advise_heap_huge_pages();
    pool_coroutine_stacks();
    CLI::App app{"tmasim: run YAML scenarios of GPU asynchronous data movement (TMA, mbarriers, bulk copies)\n"
                 "on a SystemC model or a real Hopper GPU, and compare the traces."};
    app.set_version_flag("--version", std::string("tmasim ") + TMASIM_VERSION + " (commit " + TMASIM_COMMIT + ")");
    app.require_subcommand(1);
    app.footer("Exit codes: 0 ok; 1 a mismatch (outcome, expectation or bytes); "
               "2 bad input, usage error, or a run that could not be done.");

    Action action;
    add_validate_command(app, action);
    add_run_command(app, action);
    add_diff_command(app, action);
    add_export_command(app, action);
    add_report_command(app, action);
    add_codegen_command(app, action);
    add_bench_command(app, action);
    add_explain_command(app, action);
    add_schema_command(app, action);
    add_sweep_command(app, action);
    add_layout_command(app, action);
    add_capture_command(app, action);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // Help and --version are "errors" with code 0; everything else is a usage error, said
        // the way every other error is ("tmasim: error: ..."), which CLI11's own lines are not.
        if (e.get_exit_code() == 0) return app.exit(e) == 0 ? kOk : kBadInput;
        std::cerr << "tmasim: error: " << one_line(e.what()) << "\nRun with --help for more information.\n";
        return kBadInput;
    }

    try {
        if (!action) return kBadInput;
        const int code = action();
        // What went to standard output must have arrived (`> /dev/full`, a closed pipe):
        // a verdict nobody could read is no success.
        check_stdout();
        return code;
    } catch (const tmasim::ScenarioError& e) {
        std::cerr << one_line(e.what()) << '\n';  // already "file:line:col: error: key: message"
    } catch (const tmasim::TraceError& e) {
        std::cerr << "tmasim: error: " << one_line(e.what()) << '\n';
    } catch (const std::exception& e) {
        // Unknown arch, no CUDA driver, an unwritable output, an internal error: none of
        // them is a verdict about the scenario, so they share exit code 2, never 1.
        std::cerr << "tmasim: error: " << one_line(e.what()) << '\n';
    }
    return kBadInput;
}
