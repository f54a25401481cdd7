#pragma once
// `tmasim report`: one self-contained HTML file about a run (inline CSS and SVG, no script
// from elsewhere, no network): per CTA and warp timelines with copies in flight and the
// flows issue -> complete_tx -> phase flip -> wait end, each barrier's phase and tx-count
// over time, the diagnostics with the rule, its explanation and fix, and the scenario's
// source lines around each op.
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "scenarios/run_result.h"
#include "traces/trace_links.h"
#include "traces/trace_writer.h"

namespace tmasim {

// What the report says about a rule id, beyond the diagnostic's own message. A
// diagnostic's detail keys "explanation" and "fix", where a backend gives them, win.
struct RuleHelp {
    std::string statement;    // the rule, one sentence
    std::string reference;    // where it comes from (PTX section, ...)
    std::string explanation;  // why it matters
    std::string fix;          // what to change
};

struct ReportContext {
    OpNames names;
    std::string scenario_summary;
    std::string scenario_path;             // as the trace names it
    bool scenario_found = false;           // the file was read (source lines below)
    bool scenario_stale = false;           // its hash is not the trace's: edited since
    std::vector<std::string> source_lines; // the scenario file, line 1 first
    std::map<int, int> op_lines;           // op id -> 1-based line in the file
    std::map<std::string, RuleHelp> rules; // rule id -> help
    // The fix `tmasim run` prints for a diagnostic, in the scenario's own terms (cli/teaching.h);
    // empty function or "": the rule's general fix.
    std::function<std::string(const Diagnostic&)> fix_of;
    WaitTargets wait_targets;              // empty: link waits by time alone
    bool all_instances = false;            // one card per diagnostic, not per (rule, op, CTA)
};

void write_html_report(const RunResult& result, std::ostream& out, const ReportContext& context);
// Throws std::runtime_error when the file cannot be written.
void write_html_report_file(const RunResult& result, const std::string& path, const ReportContext& context);

// Text made safe for HTML element content and attribute values.
std::string html_escape(const std::string& text);

// The timeline as one inline SVG element (html_timeline.cpp). Ops whose line is known link
// to the source listing ("#src-L<line>").
std::string timeline_svg(const RunResult& result, const TraceLinks& links, const ReportContext& context);
// The same, written to `out` as it is made.
void write_timeline_svg(const RunResult& result, const TraceLinks& links, const ReportContext& context,
                        std::ostream& out);

}  // namespace tmasim
