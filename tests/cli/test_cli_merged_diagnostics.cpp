// Issue 38: a mistake repeated in every iteration of a loop is one diagnostic naming the
// iterations, in the text of `tmasim run`, -q, --json and the HTML report, with a summary
// line at the end; the trace keeps each instance, and --all-instances shows them.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli_runner.h"

using tmasim_test::read_file;
using tmasim_test::run_cli;
using tmasim_test::scratch;
using tmasim_test::write_file;

namespace {

const std::string kRing = "scenarios/catalog/races/tma_ring_3stage_two_mistakes.yaml";
const std::string kSummary = "tmasim: 2 diagnostics: 2 hazards (2 rules, 6 instances)\n";

size_t occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

bool ends_in(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

TEST_CASE("run: the 3-stage ring's two mistakes are 2 diagnostics naming iterations 0-2", "[cli][diagnostics]") {
    auto r = run_cli("run " + kRing + " --backend model");
    INFO(r.out << r.err);
    CHECK(r.code == 0);
    CHECK(occurrences(r.out, "\n  hazard ") == 2);
    CHECK(r.out.find("diagnostics: 2 (6 instances)\n") != std::string::npos);
    CHECK(r.out.find("\n  hazard race.read_before_complete at op #8, iterations 0-2 (cta 0): op #8 shared.load "
                     "(peek): thread 64 reads tile[0]") != std::string::npos);
    CHECK(r.out.find("\n  hazard proxy.generic_to_async at op #12, iterations 0-2 (cta 0): op #12 tma.store "
                     "(store) reads tile[0]") != std::string::npos);
    CHECK(occurrences(r.out, "(the first of 3 instances; --all-instances prints each)") == 2);
    CHECK(r.out.find("expect:      hazard race.read_before_complete at op 'peek': PASS\n") != std::string::npos);
    CHECK(ends_in(r.out, kSummary));

    auto all = run_cli("run " + kRing + " --backend model --all-instances");
    CHECK(all.code == 0);
    CHECK(occurrences(all.out, "\n  hazard ") == 6);
    CHECK(all.out.find("\n  hazard proxy.generic_to_async at op #12[2] (cta 0): op #12 tma.store (store) reads "
                       "tile[2]") != std::string::npos);
    CHECK(ends_in(all.out, kSummary));  // the summary counts merged, whatever is listed

    // A run without diagnostics says so on the same line.
    auto ok = run_cli("run scenarios/catalog/teach/01_tma_load_ok.yaml --backend model");
    CHECK(ends_in(ok.out, "tmasim: 0 diagnostics\n"));
}

TEST_CASE("run -q: nothing when the expectation holds, merged diagnostics and the summary when not",
          "[cli][diagnostics]") {
    auto pass = run_cli("run " + kRing + " --backend model -q");
    CHECK(pass.code == 0);
    CHECK(pass.out.empty());

    std::string yaml = read_file(std::string(TMASIM_SOURCE_DIR) + "/" + kRing);
    const size_t at = yaml.find("  op: peek");
    REQUIRE(at != std::string::npos);
    yaml.replace(at, 10, "  op: add_one");
    const std::string wrong = scratch("ring_wrong_op.yaml");
    write_file(wrong, yaml);
    auto r = run_cli("run '" + wrong + "' --backend model -q");
    INFO(r.out);
    CHECK(r.code == 1);
    // Each merged diagnostic's first line, as the full output leads it (file:line:col: hazard: RULE: ...).
    CHECK(occurrences(r.out, wrong + ":") == 2);
    CHECK(r.out.find(": hazard: race.read_before_complete: op #8 shared.load (peek): ") != std::string::npos);
    CHECK(occurrences(r.out, " [op #8, iterations 0-2]\n") == 1);
    CHECK(occurrences(r.out, " [op #12, iterations 0-2]\n") == 1);
    CHECK(ends_in(r.out, kSummary));
}

TEST_CASE("run --json: one entry per merged diagnostic with its instances and iterations", "[cli][diagnostics]") {
    const std::string trace = scratch("ring.jsonl");
    auto r = run_cli("run " + kRing + " --backend model --json -o '" + trace + "'");
    CHECK(r.code == 0);
    const auto doc = nlohmann::json::parse(r.out);
    REQUIRE(doc.at("diagnostics").size() == 2);
    for (const auto& d : doc.at("diagnostics")) {
        CHECK(d.at("instances") == 3);
        CHECK(d.at("iterations") == "0-2");
        CHECK(d.at("instance_iters").dump() == "[[0],[1],[2]]");
    }
    CHECK(doc.at("diagnostics")[1].at("rule") == "proxy.generic_to_async");
    CHECK(doc.at("diagnostics")[1].at("op") == 12);
    CHECK(doc.at("diagnostic_summary").at("line") == kSummary.substr(0, kSummary.size() - 1));
    // The trace keeps every instance: diff, expect and the sanitizer comparison see each.
    CHECK(occurrences(read_file(trace), "\"type\":\"diagnostic\"") == 6);

    auto all = run_cli("run " + kRing + " --backend model --json --all-instances");
    CHECK(nlohmann::json::parse(all.out).at("diagnostics").size() == 6);
}

TEST_CASE("report: one card per merged diagnostic, every instance still on the timeline", "[cli][diagnostics]") {
    const std::string trace = scratch("ring_report.jsonl"), html = scratch("ring.html");
    REQUIRE(run_cli("run " + kRing + " --backend model -q -o '" + trace + "'").code == 0);
    auto r = run_cli("report '" + trace + "' -o '" + html + "'");
    CHECK(r.code == 0);
    CHECK(r.out.find("2 diagnostic(s) (6 instances), source " + kRing) != std::string::npos);
    const std::string doc = read_file(html);
    CHECK(occurrences(doc, "<div class=\"diag d-hazard\">") == 2);
    CHECK(doc.find("<h2>Diagnostics (2, 6 instances)</h2>") != std::string::npos);
    CHECK(doc.find("#12 tma.store, iterations 0-2 (line ") != std::string::npos);
    CHECK(occurrences(doc, "<dt>instances</dt><dd>3: ") == 2);
    CHECK(occurrences(doc, "<path class=\"hazard\"") == 6);

    const std::string every = scratch("ring_all.html");
    REQUIRE(run_cli("report '" + trace + "' -o '" + every + "' --all-instances").code == 0);
    CHECK(occurrences(read_file(every), "<div class=\"diag d-hazard\">") == 6);
}
