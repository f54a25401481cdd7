// Model runs of the C17 reuse races closed in the catalog's hazards/ folder: a wgmma's
// operands changed before its wait_group (by an async copy, a generic store, a peer's DSMEM
// store), compute racing with a peer's DSMEM store, and a peer's DSMEM read of bytes an
// async copy (multicast, cp.async) still writes. Each asserts the rule, the op and the
// bytes the report names, and that the correct twin stays ok.
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
namespace test_async_reuse_races {

namespace {

std::string all_diagnostics(const RunResult& r) {
    std::string out;
    for (const auto& d : r.diagnostics) out += "\n  [" + d.rule + "] " + d.message;
    return out;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

RunResult run_text(const std::string& text) { return run_model(load_scenario_text(text, "reuse_test.yaml")); }

}  // namespace

TEST_CASE("reuse: a tma.load into a wgmma operand before wait_group retires the mma", "[model][wgmma][race]") {
    const Scenario s = catalog("hazards/wgmma_operand_reload.yaml");
    const RunResult r = run_model(s);
    INFO(all_diagnostics(r));
    REQUIRE(r.diagnostics.size() == 2);  // load_a and load_b of the second iteration
    const Diagnostic& d = r.diagnostics[0];
    CHECK(d.rule == "race.wgmma_operand_overwrite");
    CHECK(d.op == op_id(s, "load_a"));
    CHECK(d.iters == std::vector<int64_t>{1});
    CHECK(d.detail.at("mma_op") == std::to_string(op_id(s, "mma")));
    CHECK(d.detail.at("first_byte") == "0");
    CHECK(d.detail.at("last_byte") == "8191");  // the k = 0 slice reaches the last 128B row
    CHECK(contains(d.message, "writes a[0..8191], an operand wgmma.mma_async op #" + std::to_string(op_id(s, "mma")) +
                                  " 'mma' of warpgroup 0"));
    CHECK(r.diagnostics[1].op == op_id(s, "load_b"));
    CHECK(r.diagnostics[1].detail.at("last_byte") == "1023");
    const RunResult ok = run_model(catalog("hazards/wgmma_operand_reload_ok.yaml"));
    INFO(all_diagnostics(ok));
    CHECK(ok.outcome == Outcome::ok);
}

namespace {
// One warpgroup, A [64, 16] and B [8, 16] unswizzled (never loaded: zeros), one mma.
std::string wgmma_program(const std::string& between) {
    return R"(scenario: reuse_wgmma
arch: sm_90
launch: {grid: [1], block: 128}
shared:
  a: {type: f16, shape: [64, 16], align: 128}
  b: {type: f16, shape: [8, 16], align: 128}
accumulators:
  acc: {n: 8}
program:
  - {op: wgmma.fence}
  - {op: wgmma.mma_async, acc: acc, a: a, b: b, scale_d: 0, swizzle: none, label: mma}
  - {op: wgmma.commit_group}
)" + between + R"(  - {op: wgmma.wait_group, n: 0}
expect:
  outcome: ok
)";
}
}  // namespace

TEST_CASE("reuse: generic stores into a pending wgmma operand, and the bytes it does not read",
          "[model][wgmma][race]") {
    // a[8] is bytes 16..17; the mma reads the whole [64, 16] tile (its one K slice).
    const RunResult r = run_text(wgmma_program(
        "  - {op: shared.store, buffer: a, index: 8, value: 7, by: thread0, label: poke}\n"));
    INFO(all_diagnostics(r));
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics[0].rule == "race.wgmma_operand_overwrite");
    CHECK(r.diagnostics[0].op == 3);  // fence, mma, commit, poke
    CHECK(r.diagnostics[0].detail.at("first_byte") == "16");
    CHECK(r.diagnostics[0].detail.at("last_byte") == "17");
    CHECK(r.diagnostics[0].detail.at("mma_op") == "1");
    // compute's element writes go through the same check.
    const RunResult c = run_text(wgmma_program(
        "  - {op: compute, buffer: b, fn: \"x + 1\", start: 0, count: 8, label: bump}\n"));
    REQUIRE(!c.diagnostics.empty());
    CHECK(c.diagnostics[0].rule == "race.wgmma_operand_overwrite");
    CHECK(contains(c.diagnostics[0].message, "writes b[0..1]"));
    // After the wait (and for a thread of another warpgroup, nothing else to order): ok.
    const RunResult after = run_text(wgmma_program("  - {op: wgmma.wait_group, n: 0}\n"
                                                   "  - {op: shared.store, buffer: a, index: 8, value: 7, by: thread0}\n"));
    INFO(all_diagnostics(after));
    CHECK(after.outcome == Outcome::ok);
}

TEST_CASE("reuse: a peer's DSMEM store into a wgmma operand needs the owner's wait before its release",
          "[model][wgmma][cluster][race]") {
    // Rank 0 issues the mma and releases the cluster barrier; rank 1 stores into rank 0's `a`
    // after the barrier. Only a wait_group before rank 0's arrive orders the store after it.
    auto program = [](bool wait_first) {
        std::string mma = R"(      - {op: wgmma.fence}
      - {op: wgmma.mma_async, acc: acc, a: a, b: b, scale_d: 0, swizzle: none, label: mma}
      - {op: wgmma.commit_group}
)";
        if (wait_first) mma += "      - {op: wgmma.wait_group, n: 0}\n";
        return R"(scenario: reuse_peer_wgmma
arch: sm_90
launch: {grid: [2], cluster: [2], block: 128}
shared:
  a: {type: f16, shape: [64, 16], align: 128}
  b: {type: f16, shape: [8, 16], align: 128}
accumulators:
  acc: {n: 8}
program:
  - op: loop
    var: i
    count: "rank == 0"
    body:
)" + mma + R"(  - {op: cluster.arrive}
  - op: loop
    var: j
    count: "rank == 0"
    body:
      - {op: wgmma.wait_group, n: 0}
  - {op: cluster.wait}
  - op: loop
    var: k
    count: "rank == 1"
    body:
      - {op: shared.store, buffer: a, index: 0, value: 1, cta: 0, by: thread0, label: remote}
  - {op: cluster.sync}
expect:
  outcome: ok
)";
    };
    const RunResult bad = run_text(program(false));
    INFO(all_diagnostics(bad));
    REQUIRE(bad.diagnostics.size() == 1);
    CHECK(bad.diagnostics[0].rule == "race.wgmma_operand_overwrite");
    CHECK(bad.diagnostics[0].cta == 1);
    CHECK(bad.diagnostics[0].detail.at("rank") == "0");
    CHECK(bad.diagnostics[0].detail.at("first_byte") == "0");
    CHECK(bad.diagnostics[0].detail.at("last_byte") == "1");
    CHECK(contains(bad.diagnostics[0].message, "writes a[0..1] of CTA 0 (rank 0)"));
    const RunResult ok = run_text(program(true));
    INFO(all_diagnostics(ok));
    CHECK(ok.outcome == Outcome::ok);
}

TEST_CASE("reuse: compute races with a peer's DSMEM store without a cluster barrier", "[model][cluster][race]") {
    const Scenario s = catalog("hazards/compute_dsmem_unsynced.yaml");
    const RunResult r = run_model(s);
    INFO(all_diagnostics(r));
    REQUIRE(r.diagnostics.size() == 4);  // one per CTA
    for (const Diagnostic& d : r.diagnostics) {
        CHECK(d.rule == "race.dsmem_unsynced");
        CHECK(d.op == op_id(s, "bump"));
        CHECK(d.detail.at("other_op") == std::to_string(op_id(s, "put")));
        CHECK(std::stoi(d.detail.at("last_byte")) - std::stoi(d.detail.at("first_byte")) == 3);  // one i32
        CHECK(contains(d.message, "shared.store op #0 'put'"));
    }
    const Diagnostic* cta1 = nullptr;
    for (const Diagnostic& d : r.diagnostics)
        if (d.cta == 1) cta1 = &d;
    REQUIRE(cta1);
    CHECK(cta1->detail.at("first_byte") == "0");
    CHECK(cta1->detail.at("other_cta") == "0");
    CHECK(contains(cta1->message, "writes inbox[0..3] of CTA 1 (rank 1), which thread 0 of CTA 0 (rank 0) wrote"));
    const RunResult ok = run_model(catalog("hazards/compute_dsmem_synced.yaml"));
    INFO(all_diagnostics(ok));
    CHECK(ok.outcome == Outcome::ok);
}

TEST_CASE("reuse: a peer reads multicast bytes its own wait does not cover", "[model][cluster][race]") {
    const Scenario s = catalog("hazards/multicast_peer_read_unsynced.yaml");
    const RunResult r = run_model(s);
    INFO(all_diagnostics(r));
    REQUIRE(r.diagnostics.size() == 2);  // each CTA reads the other's copy
    for (const Diagnostic& d : r.diagnostics) {
        CHECK(d.rule == "race.read_before_complete");
        CHECK(d.op == op_id(s, "peek"));
        CHECK(d.detail.at("other_op") == std::to_string(op_id(s, "load")));
        CHECK(d.detail.at("other_cta") == d.detail.at("rank"));
        CHECK(std::stoi(d.detail.at("last_byte")) - std::stoi(d.detail.at("first_byte")) == 15);  // one v4 load
    }
    CHECK(contains(r.diagnostics[0].message, "of CTA 1 (rank 1), which the async copies completing on barrier full of "
                                             "CTA 1 (rank 1) write (bulk.load op #5 'load')"));
    const RunResult ok = run_model(catalog("hazards/multicast_peer_read_synced.yaml"));
    INFO(all_diagnostics(ok));
    CHECK(ok.outcome == Outcome::ok);
}

namespace {
// Rank 0's threads cp.async 16 bytes each into `box`; rank 1 then reads them (DSMEM).
std::string cp_async_peer(const std::string& publish) {
    return R"(scenario: reuse_cp_async_peer
arch: sm_90
launch: {grid: [2], cluster: [2], block: 32}
global:
  src: {type: i32, shape: [128], init: iota}
shared:
  box: {type: i32, shape: [128]}
barriers:
  got: {}
program:
  - {op: mbarrier.init, barrier: got, count: 32, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: cluster.sync}
  - op: loop
    var: i
    count: "rank == 0"
    body:
      - {op: cp.async, global: src, src_index: "tid * 4", dst: box, dst_index: "tid * 4", size: 16, label: copy}
      - {op: cp.async.commit_group}
)" + publish + R"(  - {op: cluster.sync, label: published}
  - op: loop
    var: k
    count: "rank == 1"
    body:
      - {op: shared.load, buffer: box, index: "tid * 4", width: 16, cta: 0, label: peek}
  - {op: cluster.sync}
expect:
  outcome: ok
)";
}
}  // namespace

TEST_CASE("reuse: a peer reads cp.async data after the issuer's wait and a cluster barrier", "[model][cluster][race]") {
    // No wait before the cluster barrier: the copies may still be landing.
    const RunResult bad = run_text(cp_async_peer(""));
    INFO(all_diagnostics(bad));
    REQUIRE(!bad.diagnostics.empty());
    CHECK(bad.diagnostics[0].rule == "race.cp_async_unwaited");
    CHECK(bad.diagnostics[0].cta == 1);
    CHECK(contains(bad.diagnostics[0].message, "the cp.async copies of thread"));
    CHECK(contains(bad.diagnostics[0].message, "(cp.async op #"));
    // The issuer's group wait, then the barrier: ok.
    const RunResult waited = run_text(cp_async_peer(
        "  - op: loop\n    var: j\n    count: \"rank == 0\"\n    body:\n      - {op: cp.async.wait_all}\n"));
    INFO(all_diagnostics(waited));
    CHECK(waited.outcome == Outcome::ok);
    // cp.async.mbarrier.arrive.noinc and a wait on that barrier publish the copies too.
    const RunResult arrived = run_text(cp_async_peer(
        "  - op: loop\n    var: j\n    count: \"rank == 0\"\n    body:\n"
        "      - {op: cp.async.mbarrier.arrive, barrier: got, noinc: true}\n"
        "      - {op: mbarrier.wait, barrier: got, parity: 0}\n"));
    INFO(all_diagnostics(arrived));
    CHECK(arrived.outcome == Outcome::ok);
}

}  // namespace test_async_reuse_races
