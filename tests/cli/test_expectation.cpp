// The expectation policy of `tmasim run`, tested directly: its device branches (hazards
// not observable, rule ids not reported) cannot be reached through the binary on a machine
// without a GPU.
#include <catch2/catch.hpp>

#include "cli/expectation.h"
#include "scenarios/loader.h"

using tmasim::Diagnostic;
using tmasim::Outcome;
using tmasim::RunResult;
using tmasim::cli::check_expectation;

namespace {

tmasim::Scenario catalog(const std::string& rel) {
    return tmasim::load_scenario_file(std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/" + rel);
}

RunResult reporting(Outcome outcome, const std::string& rule, int op) {
    RunResult r;
    r.outcome = outcome;
    Diagnostic d;
    d.outcome = outcome;
    d.rule = rule;
    d.op = op;
    d.message = "test";
    r.diagnostics.push_back(d);
    return r;
}

int op_labelled(const tmasim::Scenario& s, const std::string& label) {
    for (const tmasim::Op* op : s.all_ops())
        if (op->label == label) return op->id;
    FAIL("no op labelled " << label);
    return -1;
}

}  // namespace

TEST_CASE("expect on the model: outcome, rule and op must all match", "[cli][expect]") {
    auto s = catalog("hazards/tma_2d_missing_proxy_fence.yaml");
    int store = op_labelled(s, "store");
    CHECK(check_expectation(s, reporting(Outcome::hazard, "proxy.generic_to_async", store), false).passed);

    auto wrong_rule = check_expectation(s, reporting(Outcome::hazard, "mbarrier.uninit", store), false);
    CHECK_FALSE(wrong_rule.passed);
    CHECK(wrong_rule.notes.at(0) == "no hazard report with rule 'proxy.generic_to_async'");

    auto wrong_op = check_expectation(s, reporting(Outcome::hazard, "proxy.generic_to_async", 0), false);
    CHECK_FALSE(wrong_op.passed);
    CHECK(wrong_op.got == "hazard proxy.generic_to_async at #0 mbarrier.init");

    auto ok = check_expectation(s, RunResult{}, false);
    CHECK_FALSE(ok.passed);
    CHECK(ok.expected == "hazard proxy.generic_to_async at op 'store'");
    CHECK(ok.got == "ok");
}

TEST_CASE("expect on the device: hazards and rule ids are not observable", "[cli][expect]") {
    auto s = catalog("hazards/tma_2d_missing_proxy_fence.yaml");
    auto hazard = check_expectation(s, RunResult{}, true);  // the hardware ran it "fine"
    CHECK(hazard.passed);
    CHECK_FALSE(hazard.checked);
    REQUIRE(hazard.notes.size() == 1);
    CHECK(hazard.notes[0].find("cannot observe a hazard") != std::string::npos);

    auto h = catalog("hazards/tma_2d_expect_tx_mismatch.yaml");
    int wait = op_labelled(h, "wait");
    CHECK(check_expectation(h, reporting(Outcome::hang, "mbarrier.wait_timeout", wait), true).passed);
    CHECK_FALSE(check_expectation(h, reporting(Outcome::hang, "mbarrier.wait_timeout", 0), true).passed);
    CHECK_FALSE(check_expectation(h, reporting(Outcome::fault, "device.cuda_error", -1), true).passed);
    // A hang the device could not attribute to an op (killed by the CLI's wall-clock limit).
    auto unnamed = check_expectation(h, reporting(Outcome::hang, "device.wall_clock_limit", -1), true);
    CHECK(unnamed.passed);
    CHECK(unnamed.notes.at(0).find("names no op") != std::string::npos);
}
