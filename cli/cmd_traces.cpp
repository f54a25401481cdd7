// Subcommands that work on trace files: diff and export.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/io/atomic_output.h"
#include "cli/io/output_guard.h"
#include "cli/option_values.h"
#include "cli/trace_scenario.h"
#include "traces/chrome_export.h"
#include "traces/json_output.h"
#include "traces/trace_diff.h"
#include "traces/trace_reader.h"

namespace tmasim::cli {

void add_diff_command(CLI::App& app, Action& action) {
    struct Args {
        std::string a, b;
        std::string align = "entry";
        bool json = false;
        DiffOptions options;
        CLI::Option* tolerance = nullptr;
    };
    auto args = std::make_shared<Args>();
    CLI::App* sub = app.add_subcommand("diff", "Compare two traces: outcome, final memory bytes, then timing");
    sub->add_option("a", args->a, "First trace (e.g. the model's)")->required()->check(CLI::ExistingFile);
    sub->add_option("b", args->b, "Second trace, the timing reference (e.g. the device's)")
        ->required()
        ->check(CLI::ExistingFile);
    args->tolerance = sub->add_option("--tolerance", args->options.tolerance,
                    "Relative timing error above which a row is marked (timing never fails the diff)")
        ->capture_default_str();  // range-checked in the action: CLI11's number check lets nan through
    sub->add_option("--top", args->options.top, "Rows in the worst-offender timing table")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    sub->add_option("--align", args->align, "Event-time origin: entry (kernel entry) or first-op (each CTA's first "
                                            "op, so the prologue's launch-to-launch variation drops out)")
        ->check(CLI::IsMember({"entry", "first-op"}))
        ->capture_default_str();
    sub->add_flag("--json", args->json, "Print one JSON document (traces/FORMAT.md, JSON output) instead of text");
    sub->footer("Exit codes: 0 outcome and bytes match (a hazard the model reports and the GPU run did not show "
                "counts as agreeing); 1 they do not; 2 a trace cannot be read.");
    sub->callback([args, &action] {
        action = [args] {
            if (args->tolerance->count() > 0)
                require_finite_non_negative("--tolerance", args->tolerance->results().at(0), args->options.tolerance);
            // The diff reads no event's detail map: left out, two traces of large details
            // take a fraction of their size (trace_reader.h, TraceReadOptions).
            using Detail = TraceReadOptions::EventDetail;
            TraceAndScenario read_a = read_trace_and_scenario(args->a, Detail::none);
            TraceAndScenario read_b = read_trace_and_scenario(args->b, Detail::none, &read_a);
            const TraceFile &a = read_a.trace, &b = read_b.trace;
            DiffOptions options = args->options;
            options.align_first_op = args->align == "first-op";
            options.op_names = a.op_names;
            options.op_names.insert(b.op_names.begin(), b.op_names.end());  // fills gaps only
            // The scenario file, where it is still there, gives the element types that decode
            // differing bytes; without it they print as hex.
            const auto& scenario = read_a.scenario ? read_a.scenario : read_b.scenario;
            if (scenario) {
                options.element_types = element_types_of(scenario->scenario);
                options.compares = image_compares_of(scenario->scenario);
            }
            DiffReport report = diff_traces(a.result, b.result, options);
            const int code = report.functional_match() ? kOk : kMismatch;
            if (args->json) {
                OrderedJson doc = diff_json(report);
                doc["exit_code"] = code;
                std::cout << dump_json(doc) << '\n';
            } else {
                print_diff(report, std::cout);
            }
            return code;
        };
    });
}

void add_export_command(CLI::App& app, Action& action) {
    struct Args {
        std::string trace, output;
    };
    auto args = std::make_shared<Args>();
    CLI::App* sub = app.add_subcommand("export", "Convert a trace to Chrome trace-event JSON (opens in Perfetto)");
    sub->add_option("trace", args->trace, "Trace file (JSONL)")->required()->check(CLI::ExistingFile);
    sub->add_option("--output,-o", args->output,
                    "Chrome trace JSON to write (default: beside the trace, t.jsonl -> t.chrome.json); - for "
                    "standard output");
    sub->callback([args, &action] {
        action = [args] {
            if (args->output.empty()) args->output = output_beside(args->trace, ".chrome.json");
            OutputGuard guard;
            guard.input(args->trace, "the trace");
            guard.output(args->output, "--output", OutputGuard::Kind::file_or_stdout);
            guard.check();  // before reading a large trace, for the plain cases
            // Large detail maps stay in the file and are read again as each event is written
            // (traces/event_details.h): memory is the events' fixed part, not the trace's size.
            TraceAndScenario read = read_trace_and_scenario(args->trace, TraceReadOptions::EventDetail::small_whole);
            const TraceFile& t = read.trace;
            add_trace_inputs(guard, args->trace, t);
            guard.check();  // and its sidecars and scenario, which only the trace names
            // The scenario, where it is still there, says which barrier phase each wait
            // waited for, so flows reach waits that did not block.
            const auto& scenario = read.scenario;
            const WaitTargets targets = scenario ? wait_targets_of(scenario->scenario, t.result) : WaitTargets();
            EventDetails details(args->trace, t);
            AtomicOutput out(args->output);
            write_chrome_trace(t.result, out.stream(), t.op_names, scenario ? &targets : nullptr, &details);
            out.commit();
            // The JSON alone goes to standard output when it is written there.
            (args->output == "-" ? std::cerr : std::cout)
                << args->output << ": " << t.result.events.size() << " events; open it in https://ui.perfetto.dev\n";
            return static_cast<int>(kOk);
        };
    });
}

}  // namespace tmasim::cli
