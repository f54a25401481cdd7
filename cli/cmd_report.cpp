// tmasim report TRACE [-o report.html]: the self-contained HTML report of one run
// (traces/html_report.h), with the model's rule table for the diagnostics' help and the
// scenario file, where it is still there, for the source lines.
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/io/atomic_output.h"
#include "cli/io/output_guard.h"
#include "cli/teaching.h"
#include "cli/trace_scenario.h"
#include "model/core/hazard_rules.h"
#include "model/core/rule_help.h"
#include "traces/diagnostic_groups.h"
#include "traces/html_report.h"
#include "traces/trace_reader.h"

namespace tmasim::cli {
namespace {

std::map<std::string, RuleHelp> rule_help() {
    std::map<std::string, RuleHelp> rules;
    for (const model::HazardRule& rule : model::HazardRules::all()) {
        RuleHelp& help = rules[rule.id];
        help.statement = rule.statement;
        help.reference = rule.reference;
        if (const model::RuleHelp* teach = model::RuleHelpTable::find(rule.id)) {
            help.explanation = teach->why;
            help.fix = teach->fix;
        }
    }
    return rules;
}

std::vector<std::string> file_lines(const std::string& path) {
    std::vector<std::string> lines;
    std::ifstream in(path, std::ios::binary);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
    }
    return lines;
}

ReportContext context_for(const TraceFile& trace, const std::optional<TraceScenario>& scenario) {
    ReportContext c;
    c.names = trace.op_names;
    c.rules = rule_help();
    c.scenario_path = trace.result.provenance.scenario_file;
    if (const auto& s = scenario) {
        c.scenario_found = true;
        c.scenario_stale = s->stale;
        c.scenario_summary = s->scenario.summary;
        c.source_lines = file_lines(c.scenario_path);
        for (const Op* op : s->scenario.all_ops())
            if (op->loc.line > 0) c.op_lines[op->id] = op->loc.line;
        c.wait_targets = wait_targets_of(s->scenario, trace.result);
        // The same fix `tmasim run` prints, naming this scenario's ops, not the rule's general
        // text; not from a file edited since the run, whose ops may have moved.
        if (!s->stale) {
            auto scenario = std::make_shared<const Scenario>(std::move(s->scenario));
            c.fix_of = [scenario](const Diagnostic& d) { return diagnostic_fix(*scenario, d); };
        }
    }
    return c;
}

}  // namespace

void add_report_command(CLI::App& app, Action& action) {
    struct Args {
        std::string trace, output;
        bool all_instances = false;
    };
    auto args = std::make_shared<Args>();
    CLI::App* sub = app.add_subcommand(
        "report", "Write a self-contained HTML report of a trace: timelines, copies in flight, barrier curves, "
                  "diagnostics with their rule, the scenario's source lines");
    sub->add_option("trace", args->trace, "Trace file (JSONL)")->required()->check(CLI::ExistingFile);
    sub->add_option("--output,-o", args->output,
                    "HTML file to write (default: beside the trace, t.jsonl -> t.html); - for standard output");
    sub->add_flag("--all-instances", args->all_instances,
                  "One card per diagnostic instance; by default one per (rule, op, CTA) naming its iterations");
    sub->footer("The scenario file named in the trace's header is read, relative to the working directory, for "
                "the source lines; without it the report shows the rest.");
    sub->callback([args, &action] {
        action = [args] {
            if (args->output.empty()) args->output = output_beside(args->trace, ".html");
            OutputGuard guard;
            guard.input(args->trace, "the trace");
            guard.output(args->output, "--output", OutputGuard::Kind::file_or_stdout);
            guard.check();  // before reading a large trace, for the plain cases
            // The report reads only the detail keys its links read (trace_reader.h): a trace
            // of large details needs a fraction of its size.
            const TraceAndScenario read = read_trace_and_scenario(args->trace, TraceReadOptions::EventDetail::linked);
            const TraceFile& t = read.trace;
            add_trace_inputs(guard, args->trace, t);
            guard.check();  // and its sidecars and the scenario it names, whose lines the report shows
            ReportContext context = context_for(t, read.scenario);
            context.all_instances = args->all_instances;
            AtomicOutput out(args->output);
            write_html_report(t.result, out.stream(), context);
            out.commit();
            const size_t merged = group_diagnostics(t.result.diagnostics).size();
            // The HTML alone goes to standard output when it is written there.
            (args->output == "-" ? std::cerr : std::cout) << args->output << ": " << t.result.events.size() << " events, "
                      << merged << " diagnostic(s)"
                      << (t.result.diagnostics.size() > merged
                              ? " (" + std::to_string(t.result.diagnostics.size()) + " instances)"
                              : "")
                      << (context.scenario_found ? ", source " + context.scenario_path : ", no source found")
                      << "; open it in a browser\n";
            return static_cast<int>(kOk);
        };
    });
}

}  // namespace tmasim::cli
