// A thread's global load on the model: with the tensors copied in just before the launch (the
// default, L2AtLaunch::inputs) a CTA's first load pays its first translation, a later first
// read of a line the first-line latency, a line read before an L2 hit; with --l2 cold a line
// never read is an HBM trip (calibrate/global_load_latency measured the first three).
#include <catch2/catch.hpp>

#include <map>

#include "model/core/arch_config.h"
#include "model/run/run_model.h"
#include "scenarios/loader.h"

using namespace tmasim;

namespace {

const char* kLoads = R"(
scenario: global_load_latencies
summary: the first load of a CTA, a first read of other lines, a read of lines read before
source: tests/model
arch: sm_90
launch: {grid: [2], block: 32}
global:
  G: {type: i32, shape: [4096], init: iota}
program:
  - {op: global.load, global: G, index: "lane", label: first}
  - {op: global.load, global: G, index: "1024 + cta * 256 + lane", label: new_line}
  - {op: global.load, global: G, index: "lane", label: again}
expect:
  outcome: ok
)";

// Issue to complete of each op of CTA `cta`'s warp 0, by op id.
std::map<int, int64_t> durations(const RunResult& r, int cta) {
    std::map<int, int64_t> issue, out;
    for (const TraceEvent& e : r.events) {
        if (e.cta != cta || e.warp != 0 || e.lane != 0) continue;
        if (e.kind == EventKind::issue) issue[e.op] = e.t;
        if (e.kind == EventKind::complete) out[e.op] = e.t - issue.at(e.op);
    }
    return out;
}

}  // namespace

TEST_CASE("global.load: first load of a CTA, first read of a line, L2 hit, and HBM when L2 starts cold",
          "[model][global_load]") {
    const Scenario s = load_scenario_text(kLoads, "global_load_latencies.yaml");
    model::ModelOptions o;
    o.arch = "h200";
    const model::TimingParams tp = model::ArchConfig::load_named(o.arch, o.arch_dir).timing();
    REQUIRE(tp.global_load_first_access_cycles != tp.global_load_first_line_cycles);
    const RunResult r = run_model(s, o);
    REQUIRE(r.outcome == Outcome::ok);
    // Each CTA pays its own first load, though both read the same lines side by side (one of
    // them reads them first, the other's first load is still its first translation); the
    // second load reads each CTA's own new lines.
    for (int cta : {0, 1}) {
        INFO("cta " << cta);
        const std::map<int, int64_t> d = durations(r, cta);
        CHECK(d.at(s.program[0].id) == int64_t(tp.global_load_first_access_cycles));
        CHECK(d.at(s.program[1].id) == int64_t(tp.global_load_first_line_cycles));
        CHECK(d.at(s.program[2].id) == int64_t(tp.global_load_l2_cycles));
    }

    o.l2 = model::L2AtLaunch::cold;
    const RunResult cold = run_model(s, o);
    REQUIRE(cold.outcome == Outcome::ok);
    const std::map<int, int64_t> c = durations(cold, 0);
    CHECK(c.at(s.program[0].id) == int64_t(tp.global_load_hbm_cycles));
    CHECK(c.at(s.program[1].id) == int64_t(tp.global_load_hbm_cycles));
    CHECK(c.at(s.program[2].id) == int64_t(tp.global_load_l2_cycles));
}

TEST_CASE("global.load in a branch pays its address there, by a predicate the vote too",
          "[model][global_load]") {
    // The same three loads by all threads, by warp0 (a warp selector: a branch, no vote) and by
    // 'warp == 0' (a vote, then the branch). The selection's costs come before each load's
    // issue, so the second load's issue is later by the first's cost and the second's
    // (calibrate/global_load_latency: a predicate's warp took 386 cycles to an L2 hit that all
    // warps took in 298).
    std::string text = kLoads;
    const std::string all = "launch: {grid: [2], block: 32}";
    text.replace(text.find(all), all.size(), "launch: {grid: [1], block: 64}");
    std::string by_pred = text, by_warp = text;
    for (std::string* t : {&by_pred, &by_warp}) {
        const char* by = t == &by_pred ? ", by: \"warp == 0\"}" : ", by: warp0}";
        for (size_t at = t->find("label: "); at != std::string::npos; at = t->find("label: ", at + 1)) {
            const size_t close = t->find('}', at);
            t->replace(close, 1, by);
        }
    }
    model::ModelOptions o;
    o.arch = "h200";
    o.trace = TraceLevel::all;  // the branched load's cost is its end clock's wait (timed loads)
    const model::TimingParams tp = model::ArchConfig::load_named(o.arch, o.arch_dir).timing();
    const RunResult p = run_model(load_scenario_text(by_pred, "pred.yaml"), o);
    const RunResult w = run_model(load_scenario_text(by_warp, "warp.yaml"), o);
    const RunResult a = run_model(load_scenario_text(text, "all.yaml"), o);
    REQUIRE(p.outcome == Outcome::ok);
    REQUIRE(w.outcome == Outcome::ok);
    REQUIRE(a.outcome == Outcome::ok);
    const auto issue_of = [](const RunResult& r, int op) {
        for (const TraceEvent& e : r.events)
            if (e.op == op && e.warp == 0 && e.lane == 0 && e.kind == EventKind::issue) return e.t;
        return int64_t(-1);
    };
    CHECK(tp.branched_global_load_cycles > 0);
    CHECK(issue_of(w, 1) - issue_of(a, 1) == int64_t(2 * tp.branched_global_load_cycles));
    CHECK(issue_of(p, 1) - issue_of(w, 1) == int64_t(2 * tp.predicate_select_cycles));
    // In the kernel as it runs (untimed), no clock read waits for the value past the branch.
    o.trace = TraceLevel::none;
    const RunResult w_untimed = run_model(load_scenario_text(by_warp, "warp.yaml"), o);
    const RunResult a_untimed = run_model(load_scenario_text(text, "all.yaml"), o);
    CHECK(issue_of(w_untimed, 1) == issue_of(a_untimed, 1));
    CHECK(issue_of(w_untimed, 1) > 0);
}
