// The HTML report's document: header, diagnostics with their rule help, the timeline
// (html_timeline.cpp), the ops, the source listing and the final memory. Everything inline.
#include "traces/html_report.h"

#include "traces/diagnostic_groups.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "scenarios/values.h"

namespace tmasim {
namespace {

constexpr int kContextLines = 2;  // source lines shown around an op's line in long files
constexpr size_t kWholeFileLines = 160;

const char* kStyle = R"CSS(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d232b;background:#f6f7f9}
header{background:#1d2733;color:#fff;padding:14px 24px}
header h1{margin:0;font-size:20px}
header .meta{color:#b8c4d2;font-size:13px;margin-top:4px}
main{padding:8px 24px 40px}
section{background:#fff;border:1px solid #dde2e8;border-radius:6px;margin:14px 0;padding:10px 16px}
h2{font-size:16px;margin:4px 0 8px}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-weight:600;font-size:12px;margin-left:8px}
.o-ok{background:#2f8a4c;color:#fff}.o-hazard{background:#c7352b;color:#fff}
.o-hang{background:#b5651d;color:#fff}.o-fault{background:#6b2fa3;color:#fff}
.summary{color:#2c3a48;max-width:1100px}
.diag{border-left:4px solid #c7352b;padding:4px 12px;margin:8px 0;background:#fdf4f3}
.diag.d-hang{border-color:#b5651d;background:#fdf6ef}.diag.d-fault{border-color:#6b2fa3;background:#f6f1fb}
.diag .rule{font-family:ui-monospace,Menlo,monospace;font-weight:600}
.diag dl{display:grid;grid-template-columns:110px 1fr;gap:2px 10px;margin:6px 0}
.diag dt{color:#5b6875}.diag dd{margin:0}
.fix{background:#eaf6ee;border-radius:4px;padding:2px 6px}
.scroll{overflow-x:auto}
svg.timeline{font:11px system-ui,sans-serif;background:#fff}
.tick{stroke:#e8ebef}.tick-label{fill:#6b7785;text-anchor:middle}.axis-title{fill:#6b7785}
.cta-frame{fill:#fafbfc;stroke:#d5dbe2}.cta-label{font-weight:700;fill:#1d2733}
.row-label{fill:#34404c}.row-sub{fill:#7b8794;font-size:10px}
rect.op{stroke:#00000030;stroke-width:.5}
.op.copy{fill:#3b7dd8}.op.wait{fill:#c9ced6}.op.barrier{fill:#8e5cc7}.op.compute{fill:#3c9a5f}.op.mma{fill:#178a8a}
.op.unfinished{fill:#e0453a;stroke:#900}
.flight{fill:#3b7dd833;stroke:#3b7dd8;stroke-width:.8}.flight-label{fill:#1f4f92;font-size:10px}
.tx-curve{fill:none;stroke:#e08a1e;stroke-width:1.6}.phase-curve{fill:none;stroke:#8e5cc7;stroke-width:1.6}
.tx-dot{fill:#e08a1e}.flip{fill:#8e5cc7;stroke:#fff;stroke-width:.8}
.barrier-sep{stroke:#eef0f3}
.flow{fill:none;stroke:#1d2733;stroke-opacity:.45;stroke-width:1}.arrowhead{fill:#1d2733;fill-opacity:.6}
.hazard{fill:#e0453a;stroke:#7a120b}.hazard-line{stroke:#e0453a;stroke-dasharray:4 3}
.legend span{display:inline-block;margin-right:14px}.sw{display:inline-block;width:14px;height:10px;margin-right:4px;vertical-align:middle;border-radius:2px}
table{border-collapse:collapse;font-size:13px}td,th{padding:2px 10px;border-bottom:1px solid #eef0f3;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}
pre.src{font:12px/1.5 ui-monospace,Menlo,monospace;margin:0;background:#fbfbfc;border:1px solid #e6e9ed;border-radius:4px;overflow-x:auto}
pre.src span.line{display:block;padding:0 8px}pre.src span.ln{color:#9aa5b1;display:inline-block;width:40px}
pre.src span.line.op{background:#eef4fc}pre.src span.line.diag{background:#fde7e5}
pre.src span.line:target{outline:2px solid #3b7dd8}
pre.src .gap{color:#9aa5b1;padding:0 8px;display:block}
.tag{font-size:11px;color:#3b7dd8;margin-left:8px}
.note{color:#7b8794;font-size:12px}
)CSS";

std::string outcome_badge(Outcome o) {
    return fmt::format("<span class=\"badge o-{0}\">{0}</span>", to_string(o));
}

std::string detail_value(const Diagnostic& d, const std::string& key) {
    auto it = d.detail.find(key);
    return it == d.detail.end() ? "" : it->second;
}

void header(const RunResult& r, const ReportContext& c, std::ostream& out) {
    const Provenance& p = r.provenance;
    out << "<header><h1>" << html_escape(p.scenario.empty() ? "tmasim run" : p.scenario) << outcome_badge(r.outcome)
        << "</h1><div class=\"meta\">"
        << html_escape(fmt::format("backend {}, gpu {}{}{}, tmasim {}", p.backend, p.gpu,
                                   p.sm_clock_mhz > 0 ? fmt::format(" @ {} MHz", p.sm_clock_mhz) : "",
                                   p.model_config.empty() ? "" : ", config " + p.model_config, p.tool_version))
        << (c.scenario_path.empty() ? "" : " &middot; " + html_escape(c.scenario_path)) << "</div></header>\n";
}

// One card per merged diagnostic (traces/diagnostic_groups.h): a hazard in every iteration
// of a loop is one card naming the iterations, not one per iteration pushing the timeline down.
void diagnostics(const RunResult& r, const ReportContext& c, std::ostream& out) {
    const std::vector<DiagnosticGroup> groups = group_diagnostics(r.diagnostics, c.all_instances);
    out << "<section id=\"diagnostics\"><h2>Diagnostics (" << groups.size();
    if (groups.size() != r.diagnostics.size()) out << ", " << r.diagnostics.size() << " instances";
    out << ")</h2>\n";
    if (!c.scenario_summary.empty())
        out << "<p class=\"summary\"><b>What the scenario shows:</b> " << html_escape(c.scenario_summary) << "</p>\n";
    if (r.diagnostics.empty()) out << "<p>No rule was broken: the run ended " << to_string(r.outcome) << ".</p>\n";
    else out << "<p class=\"note\">" << html_escape(diagnostics_summary_line(r.diagnostics)) << "</p>\n";
    for (const DiagnosticGroup& g : groups) {
        const Diagnostic& d = g.first;
        RuleHelp help;
        if (auto it = c.rules.find(d.rule); it != c.rules.end()) help = it->second;
        const std::string explanation = detail_value(d, "explanation").empty() ? help.explanation
                                                                                : detail_value(d, "explanation");
        std::string fix = detail_value(d, "fix");
        if (fix.empty() && c.fix_of) fix = c.fix_of(d);
        if (fix.empty()) fix = help.fix;
        out << "<div class=\"diag d-" << to_string(d.outcome) << "\"><div>" << outcome_badge(d.outcome)
            << " <span class=\"rule\">" << html_escape(d.rule.empty() ? "(no rule id)" : d.rule) << "</span>";
        if (d.op >= 0) {
            // "#5[1] tma.load" for one instance, "#5 tma.load, iterations 0-2" merged.
            std::string op = "#" + std::to_string(d.op);
            if (g.instances == 1)
                for (int64_t i : d.iters) op += "[" + std::to_string(i) + "]";
            if (auto n = c.names.find(d.op); n != c.names.end()) op += " " + n->second;
            const std::string where = group_where(g);
            if (const size_t comma = where.find(", "); g.instances > 1 && comma != std::string::npos)
                op += where.substr(comma);
            auto line = c.op_lines.find(d.op);
            if (line != c.op_lines.end() && c.scenario_found)
                out << fmt::format(" at <a href=\"#src-L{}\">{} (line {})</a>", line->second, html_escape(op),
                                   line->second);
            else
                out << " at " << html_escape(op);
        }
        out << " in CTA " << d.cta << "</div><dl><dt>what happened</dt><dd>" << html_escape(d.message) << "</dd>";
        if (g.instances > 1)
            out << "<dt>instances</dt><dd>" << g.instances << ": the first is shown (--all-instances: a card each); the "
                << "timeline marks each &#9650;</dd>";
        if (!help.statement.empty()) out << "<dt>the rule</dt><dd>" << html_escape(help.statement) << "</dd>";
        if (!explanation.empty()) out << "<dt>why</dt><dd>" << html_escape(explanation) << "</dd>";
        if (!fix.empty()) out << "<dt>fix</dt><dd><span class=\"fix\">" << html_escape(fix) << "</span></dd>";
        if (!help.reference.empty()) out << "<dt>reference</dt><dd>" << html_escape(help.reference) << "</dd>";
        out << "</dl></div>\n";
    }
    out << "</section>\n";
}

void timeline(const RunResult& r, const TraceLinks& links, const ReportContext& c, std::ostream& out) {
    out << "<section id=\"timeline\"><h2>Timeline</h2><div class=\"legend\">"
           "<span><i class=\"sw\" style=\"background:#3b7dd8\"></i>copy issue</span>"
           "<span><i class=\"sw\" style=\"background:#3b7dd833;border:1px solid #3b7dd8\"></i>copy in flight</span>"
           "<span><i class=\"sw\" style=\"background:#c9ced6\"></i>wait / sync</span>"
           "<span><i class=\"sw\" style=\"background:#8e5cc7\"></i>mbarrier op, phase flip &#9670;</span>"
           "<span><i class=\"sw\" style=\"background:#3c9a5f\"></i>compute, loads, stores</span>"
           "<span><i class=\"sw\" style=\"background:#e08a1e\"></i>tx-count</span>"
           "<span><i class=\"sw\" style=\"background:#e0453a\"></i>hazard &#9650; / unfinished</span>"
           "<span>&#10230; issue &rarr; complete_tx &rarr; phase flip &rarr; wait end</span></div>\n"
        << "<p class=\"note\">Hover over a shape for its op and times; click an op to see its source line. ";
    if (r.provenance.backend != "model")
        out << "A device trace has no model-only events: no landings, barrier curves or flows.";
    out << "</p><div class=\"scroll\">";
    write_timeline_svg(r, links, c, out);
    out << "</div></section>\n";
}

void ops_table(const RunResult& r, const ReportContext& c, std::ostream& out) {
    struct Stats {
        size_t events = 0;
        int64_t first = 0, last = 0;
    };
    std::map<int, Stats> per_op;
    for (const TraceEvent& e : r.events) {
        auto [it, fresh] = per_op.try_emplace(e.op);
        it->second.first = fresh ? e.t : std::min(it->second.first, e.t);
        it->second.last = fresh ? e.t : std::max(it->second.last, e.t);
        ++it->second.events;
    }
    out << "<section id=\"ops\"><h2>Ops</h2><table><tr><th>op</th><th>name</th><th>line</th><th>events</th>"
           "<th>first t (cycles)</th><th>last t (cycles)</th></tr>\n";
    for (const auto& [op, s] : per_op) {
        auto n = c.names.find(op);
        auto line = c.op_lines.find(op);
        std::string line_cell = line == c.op_lines.end() ? "" : std::to_string(line->second);
        if (!line_cell.empty() && c.scenario_found)
            line_cell = fmt::format("<a href=\"#src-L{0}\">{0}</a>", line->second);
        out << fmt::format("<tr><td>#{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                           "<td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
                           op, html_escape(n == c.names.end() ? "?" : n->second), line_cell, s.events, s.first,
                           s.last);
    }
    out << "</table></section>\n";
}

void source(const RunResult& r, const ReportContext& c, std::ostream& out) {
    out << "<section id=\"source\"><h2>Scenario source</h2>\n";
    if (!c.scenario_found) {
        out << "<p class=\"note\">" << html_escape(c.scenario_path.empty() ? "The trace names no scenario file."
                                                                             : c.scenario_path + " was not found: run "
                                                                               "tmasim report from the directory "
                                                                               "tmasim run ran in.")
            << "</p></section>\n";
        return;
    }
    if (c.scenario_stale)
        out << "<p class=\"note\">The file changed since this trace was written (its hash differs): lines may "
               "have moved.</p>\n";
    std::map<int, std::vector<int>> ops_at;  // line -> op ids
    for (const auto& [op, line] : c.op_lines) ops_at[line].push_back(op);
    std::set<int> diag_lines;
    for (const Diagnostic& d : r.diagnostics)
        if (auto it = c.op_lines.find(d.op); it != c.op_lines.end()) diag_lines.insert(it->second);
    const int n = static_cast<int>(c.source_lines.size());
    std::vector<bool> shown(n + 1, c.source_lines.size() <= kWholeFileLines);
    for (const auto& [line, ops] : ops_at)
        for (int l = std::max(1, line - kContextLines); l <= std::min(n, line + kContextLines); ++l) shown[l] = true;
    out << "<pre class=\"src\">";
    bool gap = false;
    for (int l = 1; l <= n; ++l) {
        if (!shown[l]) {
            if (!gap) out << "<span class=\"gap\">&#8942;</span>";
            gap = true;
            continue;
        }
        gap = false;
        const auto ops = ops_at.find(l);
        const char* cls = diag_lines.count(l) ? " diag" : ops != ops_at.end() ? " op" : "";
        out << fmt::format("<span class=\"line{}\" id=\"src-L{}\"><span class=\"ln\">{}</span>{}", cls, l, l,
                           html_escape(c.source_lines[l - 1]));
        if (ops != ops_at.end()) {
            std::string tag;
            for (int op : ops->second) {
                auto nm = c.names.find(op);
                tag += (tag.empty() ? "" : ", ") + ("#" + std::to_string(op)) +
                       (nm == c.names.end() ? "" : " " + nm->second);
            }
            out << "<span class=\"tag\">" << html_escape(tag) << "</span>";
        }
        out << "</span>";
    }
    out << "</pre></section>\n";
}

void memory(const RunResult& r, std::ostream& out) {
    out << "<section id=\"memory\"><h2>Final memory</h2><table><tr><th>space</th><th>name</th><th>cta</th>"
           "<th>bytes</th><th>hash</th></tr>\n";
    for (const MemoryImage& m : r.memory)
        out << fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                           "<td><code>{}</code></td></tr>\n",
                           html_escape(m.space), html_escape(m.name), m.cta, image_size(m),
                           image_hash(m).text());
    out << "</table></section>\n";
}

}  // namespace

std::string html_escape(const std::string& text) {
    std::string s;
    s.reserve(text.size());
    for (char ch : text) {
        switch (ch) {
        case '&': s += "&amp;"; break;
        case '<': s += "&lt;"; break;
        case '>': s += "&gt;"; break;
        case '"': s += "&quot;"; break;
        case '\'': s += "&#39;"; break;
        default: s += ch;
        }
    }
    return s;
}

void write_html_report(const RunResult& r, std::ostream& out, const ReportContext& c) {
    const TraceLinks links = link_trace(r, c.names, c.wait_targets.empty() ? nullptr : &c.wait_targets);
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        << "<title>tmasim report: " << html_escape(r.provenance.scenario) << "</title><style>" << kStyle
        << "</style></head><body>\n";
    header(r, c, out);
    out << "<main>\n";
    diagnostics(r, c, out);
    timeline(r, links, c, out);
    source(r, c, out);
    ops_table(r, c, out);
    memory(r, out);
    out << "</main></body></html>\n";
}

void write_html_report_file(const RunResult& r, const std::string& path, const ReportContext& c) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("traces: cannot open '" + path + "' for writing");
    write_html_report(r, out, c);
    out.flush();
    if (!out) throw std::runtime_error("traces: error writing '" + path + "'");
}

}  // namespace tmasim
