// Details the teaching scenarios promise beyond outcome, rule and op: the fault's rule id
// and its message, bank wavefronts in the trace,
// cp.async zero-fill and group visibility, and prefetches warming L2.
#include <catch2/catch.hpp>

#include "catalog_support.h"

#include "model/state/async_write_registry.h"
#include "model/state/cp_async_groups.h"
#include "model/state/proxy_tracker.h"
#include "model/run/run_model.h"
#include "scenarios/loader.h"
#include "scenarios/values.h"

using namespace tmasim;
using test::op_id;
using namespace tmasim::model;

namespace {
Scenario teach(const std::string& name) {
    return load_scenario_file(std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/teach/" + name);
}
const TraceEvent& complete_of(const RunResult& r, int op) {
    for (const auto& e : r.events)
        if (e.op == op && e.kind == EventKind::complete) return e;
    FAIL("no complete event of op " << op);
    return r.events.front();
}
}  // namespace

TEST_CASE("teach 18b: a negative store coordinate faults with its own rule", "[model][teach]") {
    const Scenario s = teach("18b_neg_coords_store.yaml");
    const RunResult r = run_model(s);
    REQUIRE(r.outcome == Outcome::fault);
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics[0].rule == "tma.negative_store_coords");
    CHECK(r.diagnostics[0].op == op_id(s, "store"));
    // The GPU traps: nothing reached global memory.
    for (const auto& m : r.memory)
        if (m.name == "A") CHECK(load_element_int(m.bytes.data(), DType::i32, 0) == 0);
}

TEST_CASE("teach 18a: a load at negative coordinates zero-fills and signals the full box", "[model][teach]") {
    const RunResult r = run_model(teach("18a_neg_coords_load.yaml"));
    REQUIRE(r.outcome == Outcome::ok);
    for (const auto& m : r.memory)
        if (m.name == "tile") {
            CHECK(load_element_int(m.bytes.data(), DType::i32, 0) == 0);                // row -16: fill
            CHECK(load_element_int(m.bytes.data(), DType::i32, 15 * 64 + 3) == 0);      // row -1: fill
        }
}

TEST_CASE("teach 19: linear column reads conflict 8-way, swizzled ones do not", "[model][teach][banks]") {
    const Scenario s = teach("19_swizzle_conflicts.yaml");
    const RunResult r = run_model(s);
    REQUIRE(r.outcome == Outcome::ok);
    const TraceEvent& linear = complete_of(r, op_id(s, "column_linear"));
    const TraceEvent& swizzled = complete_of(r, op_id(s, "column_swizzled"));
    CHECK(linear.detail.at("conflict_ways") == "8");
    CHECK(linear.detail.at("wavefronts") == "32");
    CHECK(swizzled.detail.at("conflict_ways") == "1");
    CHECK(swizzled.detail.at("wavefronts") == "4");
    // The op's time grows with its wavefronts (one cycle each past the first).
    auto duration = [&](int op) {
        int64_t issue = -1, done = -1;
        for (const auto& e : r.events) {
            if (e.op == op && e.kind == EventKind::issue) issue = e.t;
            if (e.op == op && e.kind == EventKind::complete) done = e.t;
        }
        return done - issue;
    };
    // 28 more wavefronts at shared_wavefront_cycles (2, measured on the H200) each.
    CHECK(duration(op_id(s, "column_linear")) - duration(op_id(s, "column_swizzled")) == 28 * 2);
}

TEST_CASE("cp.async: src-size zero-fills, groups land, data visible after the wait", "[model][cp_async]") {
    const char* text = R"(
scenario: cp_async_fill
launch: {grid: [1], block: 32}
global:
  G: {type: i32, shape: [1024], init: iota}
shared:
  s: {type: i32, shape: [128]}
program:
  - {op: bulk.prefetch, global: G, offset: 512, bytes: 2048, by: thread0, label: prefetch}
  - {op: cp.async, global: G, src_index: "tid*4", dst: s, dst_index: "tid*4", size: 16, src_size: 8, label: copy}
  - {op: cp.async.wait_all}
  - {op: shared.load, buffer: s, index: "tid*4", width: 16, label: read}
  - {op: global.load, global: G, index: "512 + tid", label: warm}
  - {op: global.load, global: G, index: "256 + tid", label: cold}
expect: {outcome: ok}
)";
    const Scenario s = load_scenario_text(text, "cp.yaml");
    const RunResult r = run_model(s);
    INFO((r.diagnostics.empty() ? "" : r.diagnostics.front().message));
    REQUIRE(r.outcome == Outcome::ok);
    for (const auto& m : r.memory)
        if (m.name == "s")
            for (int t = 0; t < 32; ++t) {
                CHECK(load_element_int(m.bytes.data(), DType::i32, t * 4) == t * 4);
                CHECK(load_element_int(m.bytes.data(), DType::i32, t * 4 + 1) == t * 4 + 1);
                CHECK(load_element_int(m.bytes.data(), DType::i32, t * 4 + 2) == 0);  // zero-filled
                CHECK(load_element_int(m.bytes.data(), DType::i32, t * 4 + 3) == 0);
            }
    // The prefetched lines are in L2; the others come from HBM.
    CHECK(complete_of(r, op_id(s, "warm")).detail.at("l2_hit") == "1");
    CHECK(complete_of(r, op_id(s, "cold")).detail.at("l2_hit") == "0");
}

TEST_CASE("cp.async groups: wait_group N covers all but the newest N", "[model][cp_async]") {
    CpAsyncGroups g(2);
    const int a = g.add_copy(0);
    g.commit(0);
    const int b = g.add_copy(0);
    g.commit(0);
    CHECK(g.wait_satisfied(0, 2));
    CHECK_FALSE(g.wait_satisfied(0, 1));
    g.mark_landed(b, 5);  // the newer group landing first does not satisfy wait_group 1
    CHECK_FALSE(g.wait_satisfied(0, 1));
    g.mark_landed(a, 9);
    CHECK(g.wait_satisfied(0, 1));
    CHECK(g.covered_tokens(0, 1) == std::vector<int>{a});
    CHECK(g.covered_time(0, 0) == 9);
    CHECK(g.outstanding(0).empty());
    CHECK(g.wait_satisfied(1, 0));  // threads are independent
}

TEST_CASE("async write registry classifies races", "[model][races]") {
    ProxyTracker tracker(2, 256, 1);
    AsyncWriteRegistry reg;
    BarrierObservations obs;
    int64_t seen = -1;
    obs.observed = [&](int, int) { return seen; };
    obs.phase_bytes = [](int, int64_t) { return int64_t{0}; };
    AsyncWrite w;
    w.kind = AsyncWrite::Kind::tma;
    w.first = 0;
    w.last = 127;
    w.agent = tracker.tma_agent(0);
    w.barrier = 0;
    w.issue_phase = 1;
    const int id = reg.add(w);
    CHECK_FALSE(reg.check(0, 128, 131, tracker, obs));  // other bytes
    CHECK(reg.check(0, 0, 3, tracker, obs)->rule == "race.read_before_complete");
    seen = 0;  // phase 0 completed by arrivals alone, the load is in phase 1
    CHECK(reg.check(0, 0, 3, tracker, obs)->rule == "race.early_pass");
    // Landed and published through the barrier phase the thread acquires: no race.
    const uint32_t t = tracker.async_write(0, 128, 3, w.agent);
    reg.landed(id, t);
    VectorClock phase = tracker.empty_clock();
    tracker.release_into(w.agent, phase);
    tracker.acquire(1, phase);
    CHECK_FALSE(reg.check(1, 0, 3, tracker, obs));
    CHECK(reg.check(0, 0, 3, tracker, obs));
}
