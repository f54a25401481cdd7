// The HTML report: one self-contained document (no network), the timeline's shapes for
// what the run did, diagnostics with their rule help, and the scenario's source lines.
#include <catch2/catch.hpp>

#include <sstream>

#include "sample_run.h"
#include "traces/html_report.h"

using namespace tmasim;
using tmasim_test::make_event;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_html_report {

namespace {

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

TraceEvent model_only(int op, int warp, int64_t t, const std::string& what, std::map<std::string, std::string> detail) {
    TraceEvent e = make_event(op, warp, 0, EventKind::state, t);
    e.model_only = true;
    e.what = what;
    e.detail = std::move(detail);
    return e;
}

// A tma.load (op 0, warp 0) lands at 200 on full[0] and releases warp 1's wait (op 1);
// op 2 then breaks a rule. The scenario file has the ops on lines 3, 4 and 5.
RunResult report_run() {
    RunResult r;
    r.provenance.backend = "model";
    r.provenance.scenario = "demo";
    r.provenance.sm_clock_mhz = 1000;
    r.events = {make_event(0, 0, 0, EventKind::issue, 10),
                model_only(0, 0, 10, "tma_start", {{"bytes", "64"}}),
                make_event(0, 0, 0, EventKind::complete, 14),
                make_event(1, 1, 0, EventKind::wait_begin, 20),
                model_only(0, 0, 200, "complete_tx", {{"barrier", "full[0]"}, {"bytes", "64"}, {"tx_count", "0"}}),
                model_only(0, 0, 200, "phase_flip", {{"barrier", "full[0]"}, {"phase", "0"}, {"tx_count", "0"}}),
                make_event(1, 1, 0, EventKind::wait_end, 210)};
    TraceEvent hazard = make_event(2, 1, 0, EventKind::hazard, 230);
    hazard.model_only = true;
    hazard.what = "proxy.generic_to_async";
    r.events.push_back(hazard);
    Diagnostic d;
    d.rule = "proxy.generic_to_async";
    d.op = 2;
    d.message = "#2 tma.store reads tile<0..3> written by generic stores";
    d.detail = {{"fix", "add fence.proxy.async before the sync"}};
    r.diagnostics.push_back(d);
    r.outcome = Outcome::hazard;
    r.memory.push_back({"A", "global", 0, {1, 2, 3, 4}});
    return r;
}

ReportContext report_context() {
    ReportContext c;
    c.names = {{0, "tma.load"}, {1, "mbarrier.wait"}, {2, "tma.store"}};
    c.scenario_path = "demo.yaml";
    c.scenario_found = true;
    c.source_lines = {"scenario: demo", "program:", "  - {op: tma.load}", "  - {op: mbarrier.wait}",
                      "  - {op: tma.store}"};
    c.op_lines = {{0, 3}, {1, 4}, {2, 5}};
    c.rules["proxy.generic_to_async"] = {"generic writes read by the async proxy need fence.proxy.async",
                                         "PTX 9.7.13.4", "", "unused: the diagnostic's own fix wins"};
    return c;
}

std::string html(const RunResult& r, const ReportContext& c) {
    std::ostringstream out;
    write_html_report(r, out, c);
    return out.str();
}

}  // namespace

TEST_CASE("html report: one self-contained document", "[traces][report]") {
    const std::string doc = html(report_run(), report_context());
    CHECK(doc.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(count(doc, "<svg") == 1);
    CHECK(count(doc, "</html>") == 1);
    // Nothing is fetched: no scripts, stylesheets or images from elsewhere. The only URL is
    // the SVG namespace, which is a name, not a request.
    CHECK(count(doc, "http") == 1);
    CHECK(count(doc, "xmlns=\"http://www.w3.org/2000/svg\"") == 1);
    CHECK(count(doc, "<script") == 0);
    CHECK(count(doc, "<link") == 0);
}

TEST_CASE("html report: timeline shapes for slices, the copy, the barrier, flows and the hazard", "[traces][report]") {
    const std::string doc = html(report_run(), report_context());
    CHECK(count(doc, "<rect class=\"op ") == 2);  // the tma.load issue and the wait
    CHECK(count(doc, "<rect class=\"flight\"") == 1);
    CHECK(doc.find("<title>tma.load #0 64 B in flight: 10 .. 200 (190 cycles, warp 0)</title>") != std::string::npos);
    CHECK(doc.find(">barrier full[0]</text>") != std::string::npos);
    CHECK(count(doc, "class=\"tx-curve\"") == 1);
    CHECK(count(doc, "class=\"phase-curve\"") == 1);
    CHECK(count(doc, "<path class=\"flip\"") == 1);
    CHECK(doc.find("phase 0 of full[0] completed; 1 wait(s) released") != std::string::npos);
    CHECK(count(doc, "class=\"flow\"") == 2);  // issue -> complete_tx, flip -> wait end
    CHECK(count(doc, "<path class=\"hazard\"") == 1);
    CHECK(doc.find("<a href=\"#src-L3\"><rect class=\"op copy\"") != std::string::npos);  // the load links its line
}

TEST_CASE("html report: the diagnostic with its rule, fix and reference, escaped", "[traces][report]") {
    const std::string doc = html(report_run(), report_context());
    CHECK(doc.find("#2 tma.store reads tile&lt;0..3&gt; written by generic stores") != std::string::npos);
    CHECK(doc.find("<dt>the rule</dt><dd>generic writes read by the async proxy need fence.proxy.async</dd>") !=
          std::string::npos);
    CHECK(doc.find("<span class=\"fix\">add fence.proxy.async before the sync</span>") != std::string::npos);
    CHECK(doc.find("unused: the diagnostic's own fix wins") == std::string::npos);
    CHECK(doc.find("<dt>reference</dt><dd>PTX 9.7.13.4</dd>") != std::string::npos);
    CHECK(doc.find("<a href=\"#src-L5\">#2 tma.store (line 5)</a>") != std::string::npos);
}

TEST_CASE("html report: source lines with their ops, the diagnostic's line marked", "[traces][report]") {
    const std::string doc = html(report_run(), report_context());
    CHECK(doc.find("<span class=\"line op\" id=\"src-L3\"><span class=\"ln\">3</span>  - {op: tma.load}"
                   "<span class=\"tag\">#0 tma.load</span>") != std::string::npos);
    CHECK(doc.find("<span class=\"line diag\" id=\"src-L5\">") != std::string::npos);
    CHECK(doc.find("id=\"src-L1\"") != std::string::npos);  // a short file is shown whole

    // A long file shows only the lines around the ops, with a gap marker between.
    ReportContext long_file = report_context();
    for (int i = 0; i < 300; ++i) long_file.source_lines.push_back("# filler " + std::to_string(i));
    long_file.op_lines[2] = 200;
    const std::string cut = html(report_run(), long_file);
    CHECK(cut.find("id=\"src-L198\"") != std::string::npos);
    CHECK(cut.find("id=\"src-L202\"") != std::string::npos);
    CHECK(cut.find("id=\"src-L150\"") == std::string::npos);
    CHECK(count(cut, "class=\"gap\"") == 2);

    ReportContext none = report_context();
    none.scenario_found = false;
    CHECK(html(report_run(), none).find("demo.yaml was not found") != std::string::npos);
}

}  // namespace test_html_report
