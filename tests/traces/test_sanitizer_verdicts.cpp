// The model's hazards against a compute-sanitizer run's, per hazard: in compare_hazards, in
// tmasim diff (text and outcome) and in the coverage table every known rule id is in.
#include <catch2/catch.hpp>

#include <sstream>

#include "sample_run.h"
#include "scenarios/rule_ids.h"
#include "traces/sanitizer_verdicts.h"
#include "traces/trace_diff.h"

using namespace tmasim;
using tmasim_test::sample_run;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_sanitizer_verdicts {

namespace {

Diagnostic hazard(const std::string& rule, int op) {
    Diagnostic d;
    d.outcome = Outcome::hazard;
    d.rule = rule;
    d.op = op;
    d.message = rule + " at op " + std::to_string(op);
    return d;
}

Diagnostic finding(const std::string& kind, const std::string& ops, int op) {
    Diagnostic d;
    d.outcome = Outcome::hazard;
    d.rule = "sanitizer.racecheck." + kind;
    d.op = op;
    d.message = "racecheck: " + kind + " between ops " + ops;
    d.detail = {{"tool", "racecheck"}, {"ops", ops}};
    return d;
}

// sample_run() as a GPU ran it under racecheck, with these findings.
RunResult sanitized_run(std::vector<Diagnostic> findings) {
    RunResult d = sample_run();
    d.provenance.backend = "device";
    d.provenance.gpu = "NVIDIA H100 80GB HBM3";
    d.provenance.model_config = "";
    d.provenance.extra["sanitizer"] = "racecheck";
    d.outcome = findings.empty() ? Outcome::ok : Outcome::hazard;
    d.diagnostics = std::move(findings);
    for (TraceEvent& e : d.events) e.model_only = false;
    return d;
}

std::string printed(const DiffReport& r) {
    std::ostringstream out;
    print_diff(r, out);
    return out.str();
}

}  // namespace

TEST_CASE("compare_hazards: both found it, the model only (with what the tool cannot see), the sanitizer only",
          "[traces][sanitizer]") {
    const OpNames names = {{2, "shared.load"}, {5, "tma.store"}, {7, "shared.store"}};
    const std::vector<Diagnostic> model = {hazard("race.shared_raw", 2), hazard("race.shared_raw", 2),
                                           hazard("proxy.generic_to_async", 5)};
    const RunResult device = sanitized_run({finding("raw", "0,2", 2), finding("waw", "7,?", 7)});
    const std::vector<HazardVerdict> v = compare_hazards(model, device, names);
    REQUIRE(v.size() == 3);
    CHECK(v[0].kind == HazardVerdict::Kind::agree);
    CHECK(v[0].where == "race.shared_raw at #2 shared.load");
    CHECK(v[0].why == "racecheck: raw between ops 0,2");
    CHECK(v[1].kind == HazardVerdict::Kind::model_only);
    CHECK(v[1].why.find("racecheck cannot see the async proxy") == 0);
    CHECK(v[2].kind == HazardVerdict::Kind::sanitizer_only);
    CHECK(v[2].where == "sanitizer.racecheck.waw at #7 shared.store");
    HazardCounts counts;
    counts.add(v);
    CHECK(counts_line(counts) == "agree: 1, model-only: 1, sanitizer-only: 1");
}

TEST_CASE("compare_hazards: an access that may be one of several ops matches a model hazard at any of them",
          "[traces][sanitizer]") {
    const std::vector<HazardVerdict> v =
        compare_hazards({hazard("race.shared_war", 5)}, sanitized_run({finding("war", "3|5,1", -1)}), {});
    REQUIRE(v.size() == 1);
    CHECK(v[0].kind == HazardVerdict::Kind::agree);
    // A trace's free-text detail that is no op list names no op, and throws nothing.
    const std::vector<HazardVerdict> odd =
        compare_hazards({hazard("race.shared_war", 5)}, sanitized_run({finding("war", "x,99999999999999,-1", -1)}), {});
    REQUIRE(odd.size() == 2);
    CHECK(odd[0].kind == HazardVerdict::Kind::model_only);
    CHECK(odd[1].kind == HazardVerdict::Kind::sanitizer_only);
}

TEST_CASE("compare_hazards: a finding in the executor's own code is not compared", "[traces][sanitizer]") {
    Diagnostic executor = finding("barrier", "?", -1);
    executor.detail["executor_code"] = "1";
    CHECK(compare_hazards({}, sanitized_run({executor}), {}).empty());
}

TEST_CASE("compare_hazards: a class racecheck can see but did not report is model-only, said so",
          "[traces][sanitizer]") {
    const std::vector<HazardVerdict> v = compare_hazards({hazard("race.shared_war", 3)}, sanitized_run({}), {});
    REQUIRE(v.size() == 1);
    CHECK(v[0].kind == HazardVerdict::Kind::model_only);
    CHECK(v[0].why == "racecheck can see this class and reported nothing at this op");
}

TEST_CASE("diff: a hazard racecheck confirms is an outcome match, not 'not observable'", "[traces][sanitizer]") {
    // sample_run() reports proxy.generic_to_async at op 1; racecheck names op 1 too.
    DiffOptions options;
    options.op_names = {{1, "tma.store"}};
    const DiffReport r = diff_traces(sample_run(), sanitized_run({finding("raw", "0,1", 1)}), options);
    CHECK(r.outcome_match());
    CHECK(r.races_not_observed.empty());
    REQUIRE(r.hazards.size() == 1);
    CHECK(r.hazards[0].kind == HazardVerdict::Kind::agree);
    const std::string text = printed(r);
    CHECK(text.find("not observable") == std::string::npos);
    CHECK(text.find("HAZARDS (model vs compute-sanitizer): agree: 1, model-only: 0, sanitizer-only: 0") !=
          std::string::npos);
    CHECK(text.find("  agree, both found it: proxy.generic_to_async at #1 tma.store: racecheck: raw between ops 0,1") !=
          std::string::npos);
    CHECK(r.functional_match());
}

TEST_CASE("diff: a sanitizer-only hazard is a model gap and fails the diff", "[traces][sanitizer]") {
    RunResult model = sample_run();
    model.outcome = Outcome::ok;
    model.diagnostics.clear();
    const DiffReport r = diff_traces(model, sanitized_run({finding("waw", "3,4", 4)}));
    CHECK(r.sanitizer_only());
    CHECK_FALSE(r.outcome_agrees());
    CHECK_FALSE(r.functional_match());
    CHECK(printed(r).find("SANITIZER ONLY (a model gap): sanitizer.racecheck.waw at #4") != std::string::npos);
}

TEST_CASE("diff: without a sanitizer the verdict list stays empty", "[traces][sanitizer]") {
    RunResult device = sanitized_run({});
    device.provenance.extra.erase("sanitizer");
    CHECK(diff_traces(sample_run(), device).hazards.empty());
}

TEST_CASE("every hazard rule id is either confirmable by a tool or says what the sanitizer cannot see",
          "[traces][sanitizer]") {
    size_t confirmable = 0;
    for (const RuleId& id : known_rule_ids()) {
        if (id.outcome != Outcome::hazard) continue;
        INFO(id.id);
        const SanitizerCoverage c = sanitizer_coverage(id.id);
        CHECK((c.tool == "racecheck" || c.blind_to != sanitizer_coverage("no.such.rule").blind_to));
        if (!c.tool.empty()) ++confirmable;
    }
    CHECK(confirmable == 8);
}

}  // namespace test_sanitizer_verdicts
