// Merged diagnostics (traces/diagnostic_groups.h): one per (outcome, rule, op, CTA) with the
// iterations it covers, in the order of each group's first instance.
#include <catch2/catch.hpp>

#include <sstream>

#include "traces/diagnostic_groups.h"
#include "traces/json_output.h"
#include "traces/summary.h"

using namespace tmasim;

namespace {

Diagnostic hazard(const std::string& rule, int op, std::vector<int64_t> iters, int cta = 0,
                  const std::string& message = "m") {
    Diagnostic d;
    d.rule = rule;
    d.op = op;
    d.iters = std::move(iters);
    d.cta = cta;
    d.message = message + " " + std::to_string(op);
    for (int64_t i : d.iters) d.message += "[" + std::to_string(i) + "]";
    return d;
}

// The 3-stage ring's report order: the two mistakes alternate, iteration by iteration.
std::vector<Diagnostic> ring() {
    std::vector<Diagnostic> ds;
    for (int64_t i = 0; i < 3; ++i) {
        ds.push_back(hazard("race.read_before_complete", 8, {i}));
        ds.push_back(hazard("proxy.generic_to_async", 12, {i}));
    }
    return ds;
}

}  // namespace

TEST_CASE("diagnostic groups: a mistake repeated per iteration is one group naming the iterations",
          "[traces][diagnostics]") {
    const auto groups = group_diagnostics(ring());
    REQUIRE(groups.size() == 2);
    CHECK(groups[0].first.rule == "race.read_before_complete");
    CHECK(groups[0].first.message == "m 8[0]");  // the first instance speaks for the group
    CHECK(groups[0].instances == 3);
    CHECK(groups[1].first.rule == "proxy.generic_to_async");
    CHECK(iterations_text(groups[1]) == "0-2");
    CHECK(group_where(groups[1]) == "op #12, iterations 0-2");
    CHECK(diagnostics_summary_line(ring()) == "tmasim: 2 diagnostics: 2 hazards (2 rules, 6 instances)");

    const auto all = group_diagnostics(ring(), true);
    REQUIRE(all.size() == 6);
    CHECK(all[3].first.message == "m 12[1]");
    CHECK(group_where(all[3]) == "op #12[1]");  // one instance: the unmerged form
}

TEST_CASE("diagnostic groups: CTA, op, rule and outcome each keep groups apart", "[traces][diagnostics]") {
    std::vector<Diagnostic> ds = {hazard("race.shared_war", 5, {0}, 0), hazard("race.shared_war", 5, {0}, 1),
                                  hazard("race.shared_war", 6, {0}, 0), hazard("race.shared_raw", 5, {0}, 0)};
    Diagnostic hang = hazard("race.shared_war", 5, {1}, 0);
    hang.outcome = Outcome::hang;
    ds.push_back(hang);
    CHECK(group_diagnostics(ds).size() == 5);
    // Found after the run, with no op: told apart by their messages only.
    std::vector<Diagnostic> no_op = {hazard("mbarrier.pending_arrivals", -1, {}, 0, "a"),
                                     hazard("mbarrier.pending_arrivals", -1, {}, 0, "b"),
                                     hazard("mbarrier.pending_arrivals", -1, {}, 0, "a")};
    const auto groups = group_diagnostics(no_op);
    REQUIRE(groups.size() == 2);
    CHECK(groups[0].instances == 2);
    CHECK(group_where(groups[0]) == "2 instances");
    CHECK(group_where(groups[1]).empty());
}

TEST_CASE("diagnostic groups: iterations as ranges, nested loops, repeats and the cap", "[traces][diagnostics]") {
    std::vector<Diagnostic> ds;
    for (int64_t i : {6, 0, 2, 4, 5}) ds.push_back(hazard("r", 1, {i}));
    auto g = group_diagnostics(ds).at(0);
    CHECK(iterations_text(g) == "0, 2, 4-6");  // sorted, whatever the report order
    CHECK(iterations_text(g, 2) == "0, 2, ... (1 more)");

    ds.clear();
    for (int64_t i : {0, 1})
        for (int64_t j : {0, 1, 2})
            if (i == 0 || j == 1) ds.push_back(hazard("r", 1, {i, j}));
    g = group_diagnostics(ds).at(0);
    CHECK(iterations_text(g) == "[0][0-2], [1][1]");
    CHECK(group_where(g) == "op #1, iterations [0][0-2], [1][1]");

    // Two threads hit in the same iteration: more instances than iterations.
    ds = {hazard("r", 3, {1}), hazard("r", 3, {1}), hazard("r", 3, {2}), hazard("r", 3, {2})};
    g = group_diagnostics(ds).at(0);
    CHECK(g.iterations.size() == 2);
    CHECK(group_where(g) == "op #3, iterations 1-2, 4 instances");
    ds = {hazard("r", 3, {}), hazard("r", 3, {})};
    CHECK(group_where(group_diagnostics(ds).at(0)) == "op #3, 2 instances");
}

TEST_CASE("diagnostic groups: the summary line counts outcomes worst first, singular where one",
          "[traces][diagnostics]") {
    CHECK(diagnostics_summary_line({}) == "tmasim: 0 diagnostics");
    std::vector<Diagnostic> ds = {hazard("race.shared_war", 5, {0})};
    CHECK(diagnostics_summary_line(ds) == "tmasim: 1 diagnostic: 1 hazard (1 rule, 1 instance)");
    Diagnostic hang = hazard("mbarrier.pending_arrivals", 9, {});
    hang.outcome = Outcome::hang;
    ds.push_back(hang);
    ds.push_back(hazard("race.shared_war", 5, {1}));
    CHECK(diagnostics_summary_line(ds) == "tmasim: 2 diagnostics: 1 hang, 1 hazard (2 rules, 3 instances)");
}

TEST_CASE("diagnostic groups: the text summary and the JSON document show the merged list",
          "[traces][diagnostics]") {
    RunResult r;
    r.outcome = Outcome::hazard;
    r.diagnostics = ring();
    std::ostringstream text;
    print_summary(r, text, {{8, "shared.load"}, {12, "tma.store"}});
    const std::string s = text.str();
    CHECK(s.find("diagnostics: 2 (6 instances)\n") != std::string::npos);
    CHECK(s.find("  hazard race.read_before_complete at op #8, iterations 0-2 (cta 0): m 8[0]\n") != std::string::npos);
    CHECK(s.find("  hazard proxy.generic_to_async at op #12, iterations 0-2 (cta 0): m 12[0]\n") != std::string::npos);
    CHECK(s.find("op #12[1]") == std::string::npos);
    std::ostringstream every;
    print_summary(r, every, {}, true);
    CHECK(every.str().find("diagnostics: 6\n") != std::string::npos);
    CHECK(every.str().find("  hazard proxy.generic_to_async at op #12[1] (cta 0): m 12[1]\n") != std::string::npos);

    // Repeats without an op: merged by message, the count said without "at".
    RunResult hangs;
    hangs.diagnostics = {hazard("mbarrier.pending_arrivals", -1, {}, 0, "a"),
                         hazard("mbarrier.pending_arrivals", -1, {}, 0, "a")};
    std::ostringstream hang_text;
    print_summary(hangs, hang_text);
    CHECK(hang_text.str().find("  hazard mbarrier.pending_arrivals, 2 instances (cta 0): a -1\n") != std::string::npos);

    const OrderedJson j = run_json(r, {{12, "tma.store"}});
    CHECK(j.at("version") == 3);  // 3: integer extra and detail values as numbers
    REQUIRE(j.at("diagnostics").size() == 2);
    const OrderedJson& store = j.at("diagnostics")[1];
    CHECK(store.at("op_name") == "tma.store");
    CHECK(store.at("instances") == 3);
    CHECK(store.at("iterations") == "0-2");
    CHECK(store.at("instance_iters").dump() == "[[0],[1],[2]]");
    CHECK(j.at("diagnostic_summary").at("instances") == 6);
    CHECK(j.at("diagnostic_summary").at("rules") == 2);
    const OrderedJson every_json = run_json(r, {}, true);
    CHECK(every_json.at("diagnostics").size() == 6);
    CHECK(every_json.at("diagnostic_summary").at("diagnostics") == 2);
}
