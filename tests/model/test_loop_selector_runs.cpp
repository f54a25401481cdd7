// The model runs an op whose `by:` names a loop variable in the iterations, warps and lanes
// the selector picks at each: the first scenario of scenarios/FORMAT.md (teach/00), whose one
// loop is a 3-stage pipeline's prologue, steady state and drain.
#include <catch2/catch.hpp>

#include <cstring>
#include <set>

#include "model/run/run_model.h"
#include "scenarios/loader.h"

using namespace tmasim;

namespace {

const Op& labelled(const Scenario& s, const std::string& label) {
    for (const Op* op : s.all_ops())
        if (op->label == label) return *op;
    FAIL("no op labelled " << label);
    throw std::logic_error("unreachable");
}

// The iterations in which `op` issued, and on how many (warp, lane) pairs in all.
std::pair<std::set<int64_t>, size_t> issues_of(const RunResult& r, const Op& op) {
    std::set<int64_t> iters;
    size_t n = 0;
    for (const TraceEvent& e : r.events)
        if (e.op == op.id && e.kind == EventKind::issue && !e.model_only) {
            iters.insert(e.iters.empty() ? -1 : e.iters.back());
            ++n;
        }
    return {iters, n};
}

}  // namespace

TEST_CASE("loop selectors: the first pipeline loads in iterations 0-7 and reads in 2-9", "[model][loop_selector]") {
    const Scenario s = load_scenario_file(std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/teach/00_first_pipeline.yaml");
    const RunResult r = run_model(s);
    INFO((r.diagnostics.empty() ? "" : r.diagnostics.front().message));
    REQUIRE(r.outcome == Outcome::ok);
    const auto [loads, load_issues] = issues_of(r, labelled(s, "load"));
    CHECK(loads == std::set<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
    CHECK(load_issues == 8);  // thread 0 alone
    const auto [reads, read_issues] = issues_of(r, labelled(s, "read"));
    CHECK(reads == std::set<int64_t>{2, 3, 4, 5, 6, 7, 8, 9});
    CHECK(read_issues == 8 * 4);  // each of the 4 warps, once per iteration
}

TEST_CASE("loop selectors: the thread an iteration picks writes, and only then", "[model][loop_selector]") {
    const Scenario s = load_scenario_text(R"(scenario: loop_by_store
launch: {grid: [1], block: 64}
global:
  out: {type: i32, shape: [64], init: {fill: 0}}
program:
  - op: loop
    var: i
    count: 3
    body:
      - {op: global.store, global: out, index: "tid", value: "i + 1", by: "tid == 40 + i * 10"}
expect:
  outcome: ok
)", "loop_by_store.yaml");
    const RunResult r = run_model(s);
    REQUIRE(r.outcome == Outcome::ok);
    const MemoryImage* out = nullptr;
    for (const MemoryImage& m : r.memory)
        if (m.space == "global" && m.name == "out") out = &m;
    REQUIRE(out != nullptr);
    const auto at = [&](int i) {
        int32_t v = 0;
        std::memcpy(&v, out->bytes.data() + 4 * i, 4);
        return v;
    };
    CHECK(at(40) == 1);  // iteration 0: thread 40, warp 1
    CHECK(at(50) == 2);  // iteration 1: thread 50, warp 1
    CHECK(at(60) == 3);  // iteration 2: thread 60
    CHECK(at(0) == 0);
    CHECK(at(41) == 0);
    // Warp 1 alone ran it, lane 8, 18, 28 in turn: one issue per iteration.
    size_t issues = 0;
    for (const TraceEvent& e : r.events)
        if (e.op == s.program[0].body[0].id && e.kind == EventKind::issue && !e.model_only) {
            CHECK(e.warp == 1);
            ++issues;
        }
    CHECK(issues == 3);
}
