// libFuzzer target: what `tmasim report` does (cli/cmd_report.cpp) with a trace and the
// scenario it names: the trace read as report reads it (the link keys of each detail, ids
// checked against the scenario's grid and ops), the scenario's source lines, op lines and
// wait targets, then the HTML, grouped and per instance. The input is a scenario's YAML and a
// trace after a line "#trace"; a trace alone (it starts with '{'); or a scenario alone, read
// with a small trace of waits and a copy that names it. A TraceError or ScenarioError is the
// expected answer to bad input; a crash, a sanitizer report or another exception is a bug.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

#include "scenarios/loader.h"
#include "traces/diagnostic_groups.h"
#include "traces/html_report.h"
#include "traces/trace_links.h"
#include "traces/trace_reader.h"

namespace {

// The trace for a scenario alone: waits with and without loop indices, a copy's landing
// and a phase flip on a barrier, a hazard, a diagnostic; ids within any scenario's first ops.
const char* kTraceOfScenario =
    R"({"type":"header","format":"tmasim-trace","version":4,"backend":"model","tool_version":"fuzz","scenario":"fuzz",)"
    R"("scenario_file":"fuzz.yaml","scenario_hash":"","gpu":"","sm_clock_mhz":1755,"driver":"","cuda":"",)"
    R"("model_config":"","model_config_hash":"","seed":0,"extra":{}})"
    "\n"
    R"({"type":"event","op":0,"name":"tma.load","iters":[],"cta":0,"warp":0,"lane":0,"kind":"issue","t":1})"
    "\n"
    R"({"type":"event","op":0,"name":"tma.load","iters":[],"cta":0,"warp":0,"lane":0,"kind":"complete","t":5,)"
    R"("model_only":true,"what":"complete_tx","detail":{"barrier":"full","bytes":"4096","tx_count":"0"}})"
    "\n"
    R"({"type":"event","op":0,"name":"tma.load","iters":[],"cta":0,"warp":0,"lane":0,"kind":"complete","t":5,)"
    R"("model_only":true,"what":"phase_flip","detail":{"barrier":"full","phase":"0"}})"
    "\n"
    R"({"type":"event","op":0,"name":"mbarrier.wait","iters":[],"cta":0,"warp":0,"lane":0,"kind":"wait_begin","t":6})"
    "\n"
    R"({"type":"event","op":0,"name":"mbarrier.wait","iters":[],"cta":0,"warp":0,"lane":0,"kind":"wait_end","t":7})"
    "\n"
    R"({"type":"event","op":0,"name":"mbarrier.wait","iters":[1],"cta":0,"warp":0,"lane":0,"kind":"wait_end","t":8})"
    "\n"
    R"({"type":"event","op":0,"name":"mbarrier.wait","iters":[2,3],"cta":0,"warp":1,"lane":0,"kind":"wait_end","t":9})"
    "\n"
    R"({"type":"event","op":0,"name":"x","iters":[],"cta":0,"warp":1,"lane":0,"kind":"hazard","t":9,"what":"race"})"
    "\n"
    R"({"type":"diagnostic","outcome":"hazard","rule":"race.x","op":0,"iters":[],"cta":0,"message":"m <b>",)"
    R"("detail":{"fix":"f"}})"
    "\n"
    R"({"type":"outcome","outcome":"hazard"})"
    "\n";

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    std::string scenario_text, trace_text;
    if (const size_t mark = input.find("\n#trace\n"); mark != std::string::npos) {
        scenario_text = input.substr(0, mark);
        trace_text = input.substr(mark + 8);
    } else if (!input.empty() && input[0] == '{') {
        trace_text = input;
    } else {
        scenario_text = input;
        trace_text = kTraceOfScenario;
    }
    std::optional<tmasim::Scenario> scenario;
    if (!scenario_text.empty()) {
        try {
            scenario = tmasim::load_scenario_text(scenario_text, "fuzz.yaml");
        } catch (const tmasim::ScenarioError&) {
            // As report does with a scenario that does not load: the trace alone.
        }
    }
    tmasim::TraceReadOptions options;
    options.event_detail = tmasim::TraceReadOptions::EventDetail::linked;
    options.id_bounds = [&](const tmasim::Provenance&) -> std::optional<tmasim::TraceIdBounds> {
        if (!scenario) return std::nullopt;
        tmasim::TraceIdBounds b;
        b.ctas = scenario->launch.num_ctas();
        for (const tmasim::Op* op : scenario->all_ops()) b.ops = std::max(b.ops, op->id + 1);
        b.scenario_file = "fuzz.yaml";
        return b;
    };
    std::istringstream in(trace_text);
    tmasim::TraceFile t;
    try {
        t = tmasim::parse_trace(in, "fuzz.jsonl", options);
    } catch (const tmasim::TraceError&) {
        return 0;
    }
    tmasim::ReportContext c;
    c.names = t.op_names;
    c.scenario_path = t.result.provenance.scenario_file;
    for (const tmasim::Diagnostic& d : t.result.diagnostics)
        c.rules[d.rule] = {"statement <" + d.rule + ">", "PTX & co", "why", "fix"};
    if (scenario) {
        c.scenario_found = true;
        c.scenario_stale = !t.result.provenance.scenario_hash.empty() &&
                           t.result.provenance.scenario_hash != scenario->content_hash;
        c.scenario_summary = scenario->summary;
        c.source_lines = lines_of(scenario_text);
        for (const tmasim::Op* op : scenario->all_ops())
            if (op->loc.line > 0) c.op_lines[op->id] = op->loc.line;
        c.wait_targets = tmasim::wait_targets_of(*scenario, t.result);
    }
    std::ostringstream sink;
    for (bool all : {false, true}) {
        c.all_instances = all;
        tmasim::write_html_report(t.result, sink, c);
    }
    sink << tmasim::group_diagnostics(t.result.diagnostics).size();
    return 0;
}
