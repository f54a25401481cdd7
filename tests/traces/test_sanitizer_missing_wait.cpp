// synccheck's "Missing wait" at an mbarrier arrive-on against the model (issue 38): PTX asks
// one thread for no wait between its own arrive-ons, so a report the model's
// mbarrier.unobserved_phase does not share is no model gap where the model ran the op to the
// end and checks its barrier; it is one where the model exempts the barrier; and it is
// "not reached" where the model's run stopped first. docs/semantics.md H41.
#include <catch2/catch.hpp>

#include <sstream>

#include "sample_run.h"
#include "traces/sanitizer_verdicts.h"
#include "traces/trace_diff.h"

using namespace tmasim;
using tmasim_test::sample_run;

namespace test_sanitizer_missing_wait {

namespace {

const OpNames kNames = {{5, "mbarrier.arrive"}, {9, "mbarrier.wait"}, {12, "mbarrier.arrive"},
                        {13, "mbarrier.wait"}};

// A finding as device/sanitizer/sanitizer_ops.cpp makes it, with the details cli/sanitize_run.cpp adds.
Diagnostic missing_wait(int op, const std::string& waited) {
    Diagnostic d;
    d.outcome = Outcome::hazard;
    d.rule = "sanitizer.synccheck.barrier";
    d.op = op;
    d.message = "synccheck: Barrier error detected. Missing wait.: Read at #" + std::to_string(op) +
                " mbarrier.arrive by thread (0,0,0) (warp 0 lane 0) (32 records)";
    d.detail = {{"tool", "synccheck"}, {"kind", "barrier"}, {"ops", std::to_string(op)}};
    if (!waited.empty()) d.detail.insert({{"barrier", "filled"}, {"barrier_waited", waited}});
    return d;
}

Diagnostic model_diag(Outcome outcome, const std::string& rule, int op) {
    Diagnostic d;
    d.outcome = outcome;
    d.rule = rule;
    d.op = op;
    return d;
}

RunResult synccheck_run(std::vector<Diagnostic> findings) {
    RunResult d = sample_run();
    d.provenance.backend = "device";
    d.provenance.extra["sanitizer"] = "synccheck";
    d.outcome = Outcome::hazard;
    d.diagnostics = std::move(findings);
    return d;
}

}  // namespace

TEST_CASE("missing wait: at an arrive the model ran to the end without mbarrier.unobserved_phase, not a PTX rule",
          "[traces][sanitizer]") {
    const std::vector<HazardVerdict> v = compare_hazards({}, synccheck_run({missing_wait(12, "1")}), kNames);
    REQUIRE(v.size() == 1);
    CHECK(v[0].kind == HazardVerdict::Kind::not_ptx_rule);
    CHECK(v[0].where == "sanitizer.synccheck.barrier at #12 mbarrier.arrive");
    CHECK(v[0].why.find("not a PTX rule") != std::string::npos);
    CHECK(v[0].why.find("PTX 9.7.13.15.15") != std::string::npos);
    CHECK(v[0].why.find("PTX 9.7.13.15.4") != std::string::npos);
    HazardCounts counts;
    counts.add(v);
    CHECK(counts.sanitizer_only == 0);
    CHECK(counts_line(counts) ==
          "agree: 0, model-only: 0, sanitizer-only: 0, not a PTX rule: 1, not reached by the model: 0");
    // A model hazard elsewhere (teach/15_noinc's race.early_pass at the read) changes nothing.
    const std::vector<HazardVerdict> with_other =
        compare_hazards({model_diag(Outcome::hazard, "race.early_pass", 7)}, synccheck_run({missing_wait(12, "1")}),
                        kNames);
    REQUIRE(with_other.size() == 2);
    CHECK(with_other[1].kind == HazardVerdict::Kind::not_ptx_rule);
}

TEST_CASE("missing wait: where the model reports mbarrier.unobserved_phase at the op, both found it",
          "[traces][sanitizer]") {
    const std::vector<HazardVerdict> v = compare_hazards(
        {model_diag(Outcome::hazard, "mbarrier.unobserved_phase", 5)}, synccheck_run({missing_wait(5, "1")}), kNames);
    REQUIRE(v.size() == 1);
    CHECK(v[0].kind == HazardVerdict::Kind::agree);
}

TEST_CASE("missing wait: after the model's run stopped it is not reached, and the stop is named",
          "[traces][sanitizer]") {
    const std::vector<HazardVerdict> v =
        compare_hazards({model_diag(Outcome::hazard, "mbarrier.pending_range", 11),
                         model_diag(Outcome::hang, "mbarrier.pending_arrivals", 13)},
                        synccheck_run({missing_wait(12, "0")}), kNames);
    REQUIRE(v.size() == 2);
    CHECK(v[0].kind == HazardVerdict::Kind::model_only);
    CHECK(v[1].kind == HazardVerdict::Kind::not_reached);
    CHECK(v[1].why.find("its run stopped (hang mbarrier.pending_arrivals at #13 mbarrier.wait)") != std::string::npos);
    CHECK(v[1].why.find("no op waits on barrier filled, which the model exempts") != std::string::npos);
}

TEST_CASE("missing wait stays a model gap on a barrier no op waits on, and off an arrive", "[traces][sanitizer]") {
    // The model's mbarrier.unobserved_phase skips a barrier nobody waits on: its silence there
    // is no check, though PTX 9.7.13.15.4 has no such exemption.
    const std::vector<HazardVerdict> exempt = compare_hazards({}, synccheck_run({missing_wait(12, "0")}), kNames);
    REQUIRE(exempt.size() == 1);
    CHECK(exempt[0].kind == HazardVerdict::Kind::sanitizer_only);
    CHECK(exempt[0].why.find("a model gap: no op waits on barrier filled") != std::string::npos);
    // "Missing wait" at a wait, or any other synccheck class, is not the arrive-on case.
    const std::vector<HazardVerdict> at_wait = compare_hazards({}, synccheck_run({missing_wait(9, "1")}), kNames);
    REQUIRE(at_wait.size() == 1);
    CHECK(at_wait[0].kind == HazardVerdict::Kind::sanitizer_only);
    Diagnostic divergent = missing_wait(12, "1");
    divergent.message = "synccheck: Barrier error detected. Divergent thread(s) in warp: at #12 (1 record)";
    CHECK(compare_hazards({}, synccheck_run({divergent}), kNames).at(0).kind == HazardVerdict::Kind::sanitizer_only);
}

TEST_CASE("diff: a finding that is not a PTX rule is printed with its reason and does not fail the diff",
          "[traces][sanitizer]") {
    RunResult model = sample_run();
    model.outcome = Outcome::ok;
    model.diagnostics.clear();
    DiffOptions options;
    options.op_names = kNames;
    const DiffReport r = diff_traces(model, synccheck_run({missing_wait(12, "1")}), options);
    CHECK_FALSE(r.sanitizer_only());
    std::ostringstream out;
    print_diff(r, out);
    CHECK(out.str().find("  sanitizer only, not a PTX rule: sanitizer.synccheck.barrier at #12 mbarrier.arrive: "
                         "synccheck: Barrier error detected. Missing wait.") != std::string::npos);
}

}  // namespace test_sanitizer_missing_wait
