// The catalog's races/ and warpspec/ folders on the model: each broken scenario reports its
// rule (race.shared_raw/war/waw between warps of one CTA, semantics.md C22; race.cp_async_waw,
// C20) at the op it names, against the earlier access it names, and each correct twin is ok
// with no diagnostic at all.
#include <catch2/catch.hpp>

#include <string>

#include "catalog_support.h"
#include "model/run/run_model.h"
#include "scenarios/loader.h"

using namespace tmasim;
using tmasim::test::catalog;
using tmasim::test::op_id;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_shared_races {

namespace {

std::string all_diagnostics(const RunResult& r) {
    std::string out;
    for (const auto& d : r.diagnostics) out += "\n  [" + d.rule + "] " + d.message;
    return out;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

struct Expected {
    const char* file;
    const char* rule;
    const char* op;        // the reported op's label
    const char* other_op;  // the earlier access's label
    const char* thread;    // the reporting thread
    const char* other_thread;
    const char* bytes;     // first_byte..last_byte within the buffer
};

void check_one_race(const Expected& e) {
    const Scenario s = catalog(e.file);
    const RunResult r = run_model(s);
    INFO(e.file << all_diagnostics(r));
    CHECK(r.outcome == Outcome::hazard);
    REQUIRE(r.diagnostics.size() == 1);
    const Diagnostic& d = r.diagnostics[0];
    CHECK(d.rule == e.rule);
    CHECK(d.op == op_id(s, e.op));
    CHECK(d.detail.at("other_op") == std::to_string(op_id(s, e.other_op)));
    CHECK(d.detail.at("thread") == e.thread);
    CHECK(d.detail.at("other_thread") == e.other_thread);
    CHECK(d.detail.at("first_byte") + ".." + d.detail.at("last_byte") == e.bytes);
    // The message names both accesses: the ops, the threads and the bytes.
    CHECK(contains(d.message, "op #" + std::to_string(op_id(s, e.op))));
    CHECK(contains(d.message, "op #" + std::to_string(op_id(s, e.other_op)) + " '" + e.other_op + "'"));
    CHECK(contains(d.message, std::string("thread ") + e.thread));
    CHECK(contains(d.message, std::string("(thread ") + e.other_thread + ")"));
}

void check_clean(const char* file) {
    const RunResult r = run_model(catalog(file));
    INFO(file << all_diagnostics(r));
    CHECK(r.outcome == Outcome::ok);
    CHECK(r.diagnostics.empty());
}

}  // namespace

TEST_CASE("races: race.shared_raw at shared.load, without a barrier or with an arrive too early",
          "[model][race][catalog]") {
    check_one_race({"races/shared_raw_no_barrier.yaml", "race.shared_raw", "consume", "produce", "32", "0", "0..3"});
    check_one_race({"races/shared_raw_early_arrive.yaml", "race.shared_raw", "consume", "produce", "32", "0", "0..3"});
    check_clean("races/shared_raw_synced.yaml");
    check_clean("races/shared_raw_named_barrier.yaml");
}

TEST_CASE("races: race.shared_war at shared.store, after a read nothing orders before it", "[model][race][catalog]") {
    check_one_race({"races/shared_war_no_barrier.yaml", "race.shared_war", "overwrite", "read", "0", "32", "0..3"});
    check_one_race(
        {"races/shared_war_ring_no_empty.yaml", "race.shared_war", "refill", "consume", "0", "32", "0..3"});
    check_clean("races/shared_war_ring_ok.yaml");
}

TEST_CASE("races: race.shared_waw at shared.store and compute", "[model][race][catalog]") {
    check_one_race({"races/shared_waw_two_warps.yaml", "race.shared_waw", "second", "first", "32", "0", "0..3"});
    check_one_race({"races/shared_waw_compute.yaml", "race.shared_waw", "bump", "init", "32", "0", "0..3"});
    check_clean("races/shared_waw_synced.yaml");
}

TEST_CASE("races: race.cp_async_waw at cp.async, by the same thread or another warp", "[model][race][catalog]") {
    check_one_race(
        {"races/cp_async_waw_same_thread.yaml", "race.cp_async_waw", "second", "first", "0", "0", "0..15"});
    check_one_race(
        {"races/cp_async_waw_other_thread.yaml", "race.cp_async_waw", "second", "first", "32", "0", "0..15"});
    check_clean("races/cp_async_waw_waited.yaml");
}

TEST_CASE("warpspec: the producer/consumer ring with named barriers is clean, each missing barrier is reported",
          "[model][race][catalog][named_barrier]") {
    check_clean("warpspec/ring_named_barriers.yaml");
    // The first consumer warp to read is reported: warps 4-11 reach read_params together, and the
    // scheduler's order among them decides (warp 11, thread 352, since the predicate's select cost).
    check_one_race({"warpspec/no_params_barrier.yaml", "race.shared_raw", "read_params", "write_params", "352", "0",
                    "0..3"});
    {
        const Scenario s = catalog("warpspec/no_exchange_barrier.yaml");
        const RunResult r = run_model(s);
        INFO(all_diagnostics(r));
        REQUIRE(r.diagnostics.size() == 2);  // the other warpgroup's partials, and the snapshot's
        CHECK(r.diagnostics[0].rule == "race.shared_raw");
        CHECK(r.diagnostics[0].op == op_id(s, "read_other"));
        CHECK(r.diagnostics[0].detail.at("other_op") == std::to_string(op_id(s, "write_part")));
        CHECK(r.diagnostics[1].op == op_id(s, "partials"));
    }
    {
        // Unthrottled, the producer outruns its own first load: its third arm of full[0]
        // finds no arrival pending, and the consumers then wait for a phase that never comes.
        const Scenario s = catalog("warpspec/no_empty_wait.yaml");
        const RunResult r = run_model(s);
        INFO(all_diagnostics(r));
        REQUIRE(r.diagnostics.size() == 3);
        CHECK(r.diagnostics[0].rule == "mbarrier.pending_range");
        CHECK(r.diagnostics[0].op == op_id(s, "expect"));
        CHECK(r.diagnostics[0].iters == std::vector<int64_t>{2});
        // Its third load goes into stage 0 while the first may still be landing there, and
        // nothing tells the producer it finished (race.async_overlap, C17).
        CHECK(r.diagnostics[1].rule == "race.async_overlap");
        CHECK(r.diagnostics[1].op == op_id(s, "load"));
        CHECK(r.diagnostics[1].iters == std::vector<int64_t>{2});
        CHECK(r.diagnostics[2].rule == "mbarrier.pending_arrivals");
        CHECK(r.outcome == Outcome::hang);
    }
    for (const char* file : {"warpspec/early_release.yaml"}) {
        // The producer's next tma.load is issued into the stage a consumer warp still reads.
        const Scenario s = catalog(file);
        const RunResult r = run_model(s);
        INFO(file << all_diagnostics(r));
        REQUIRE_FALSE(r.diagnostics.empty());
        const Diagnostic& d = r.diagnostics[0];
        CHECK(d.rule == "race.shared_war");
        CHECK(d.op == op_id(s, "load"));
        CHECK(d.iters == std::vector<int64_t>{2});
        CHECK(d.detail.at("other_op") == std::to_string(op_id(s, "read_stage")));
        CHECK(contains(d.message, "issues an async write of stage[0][0..15]"));
    }
    {
        const Scenario s = catalog("warpspec/no_full_wait.yaml");
        const RunResult r = run_model(s);
        INFO(all_diagnostics(r));
        REQUIRE_FALSE(r.diagnostics.empty());
        // Both reads of the first tile race with the load that fills it (issued before them,
        // as the kernel runs untraced).
        REQUIRE(r.diagnostics.size() >= 2);
        CHECK(r.diagnostics[0].rule == "race.read_before_complete");
        CHECK(r.diagnostics[0].op == op_id(s, "read_stage"));
        CHECK(r.diagnostics[1].op == op_id(s, "read_stage_hi"));
    }
    {
        const Scenario s = catalog("warpspec/no_params_arrive.yaml");
        const RunResult r = run_model(s);
        INFO(all_diagnostics(r));
        CHECK(r.outcome == Outcome::hang);
        REQUIRE_FALSE(r.diagnostics.empty());
        CHECK(r.diagnostics[0].op == op_id(s, "wait_empty"));
    }
}

TEST_CASE("races: the cluster barrier orders the warps of each CTA, relaxed arrives do not",
          "[model][race][cluster]") {
    const std::string head =
        "scenario: cluster_orders\narch: sm_90\nlaunch: {grid: [2], cluster: [2], block: 64}\n"
        "shared:\n  t: {type: i32, shape: [32]}\nprogram:\n"
        "  - {op: shared.store, buffer: t, index: lane, value: lane, by: warp0, label: put}\n";
    const std::string tail = "  - {op: shared.load, buffer: t, index: lane, by: warp1, label: get}\n";
    const RunResult ordered =
        run_model(load_scenario_text(head + "  - {op: cluster.sync}\n" + tail, "cluster_orders.yaml"));
    INFO(all_diagnostics(ordered));
    CHECK(ordered.outcome == Outcome::ok);
    CHECK(ordered.diagnostics.empty());
    const Scenario relaxed_s = load_scenario_text(
        head + "  - {op: cluster.arrive, relaxed: true}\n  - {op: cluster.wait}\n" + tail, "cluster_orders.yaml");
    const RunResult relaxed = run_model(relaxed_s);
    INFO(all_diagnostics(relaxed));
    REQUIRE(relaxed.diagnostics.size() == 2);  // one per CTA
    for (const Diagnostic& d : relaxed.diagnostics) {
        CHECK(d.rule == "race.shared_raw");
        CHECK(d.op == op_id(relaxed_s, "get"));
    }
}

}  // namespace test_shared_races
