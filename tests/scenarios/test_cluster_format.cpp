#include <catch2/catch.hpp>

#include "scenario_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_cluster_format {

namespace {

// A valid 2-CTA cluster program; each test breaks one line of it.
const char* kCluster = R"(scenario: cluster_base
launch: {grid: [4], cluster: [2], block: 64}
global:
  A: {type: f32, shape: [256]}
shared:
  box: {type: f32, shape: [64]}
  peer: {type: i32, shape: [64]}
barriers:
  bar: {}
program:
  - {op: mbarrier.init, barrier: bar, count: 1, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: cluster.sync}
  - {op: shared.store, buffer: peer, index: tid, value: "rank", cta: "(rank + 1) % 2"}
  - {op: st.async, buffer: peer, index: tid, value: "7", barrier: bar, cta: "1 - rank"}
  - {op: mbarrier.arrive_expect_tx, barrier: bar, bytes: 256, by: thread0}
  - {op: bulk.load, global: A, offset: "cta * 64", bytes: 256, dst: box, barrier: bar, multicast: 3, by: thread0}
  - {op: mbarrier.arrive, barrier: bar, cta: 0, by: thread1}
  - {op: mbarrier.wait, barrier: bar, parity: 0}
  - {op: fence.proxy.async, space: cluster}
  - {op: cluster.arrive, relaxed: true}
  - {op: cluster.wait}
)";

std::string with(const std::string& from, const std::string& to) { return test::with(kCluster, from, to); }
std::string error_of(const std::string& text) { return test::error_of(text, "bad.yaml"); }

}  // namespace

TEST_CASE("a cluster program loads with its ranks, peers and mask") {
    const Scenario s = load_scenario_text(kCluster, "ok.yaml");
    CHECK(s.launch.cluster_size() == 2);
    CHECK(s.launch.num_ctas() == 4);
    const auto ops = s.all_ops();
    REQUIRE(ops.size() == 12);
    CHECK(ops[3]->cta.eval_int({{"rank", 1}, {"tid", 0}}) == 0);
    CHECK(ops[4]->kind == OpKind::st_async);
    CHECK(ops[4]->barrier_cta.text() == ops[4]->cta.text());  // defaults to the data's CTA
    CHECK(ops[6]->multicast.eval_int({}) == 3);
    CHECK(ops[7]->cta.eval_int({}) == 0);
    CHECK(ops[9]->proxy_space == ProxySpace::cluster);
    CHECK(ops[10]->relaxed);
}

TEST_CASE("the cluster shape must divide the grid and stay portable") {
    CHECK(error_of(with("grid: [4], cluster: [2]", "grid: [3], cluster: [2]")) ==
          "bad.yaml:2:30: error: launch.cluster: the grid's 3 CTAs do not split into clusters of 2; "
          "allowed: a cluster size that divides the grid");
    CHECK_THAT(error_of(with("grid: [4], cluster: [2]", "grid: [16], cluster: [16]")),
               Catch::Equals("bad.yaml:2:32: error: launch.cluster[0]: 16 is out of range; allowed: 1..8"));
}

TEST_CASE("init, inval and wait refuse a remote barrier with the rule that says why") {
    CHECK(error_of(with("parity: 0}", "parity: 0, cta: 1}")) ==
          "bad.yaml:19:55: error: program[8].cta: mbarrier.wait works on the CTA's own barrier only: a remote "
          "(shared::cluster) barrier takes arrive, expect_tx and complete_tx; allowed: no cta key "
          "[PTX 9.7.13.15.8; semantics.md A10]");
}

TEST_CASE("peer ranks and masks are range-checked for every thread") {
    CHECK_THAT(error_of(with("cta: \"(rank + 1) % 2\"", "cta: \"tid / 32 + 1\"")),
               Catch::StartsWith("bad.yaml:14:71: error: shared.store.cta: \"(tid / 32) + 1\" evaluates to 2 (lane=0, tid=32, warp=1); "
                                 "allowed: 0..1 (a rank in the cluster of 2 CTAs)"));
    CHECK_THAT(error_of(with("multicast: 3", "multicast: 65536")),
               Catch::Contains("bulk.load.multicast: \"65536\" evaluates to 65536"));
    CHECK_THAT(error_of(with("cta: 0, by: thread1", "cta: 2, by: thread1")),
               Catch::Contains("bad.yaml:18:46: error: mbarrier.arrive.cta: \"2\" evaluates to 2 (lane=1, tid=1, warp=0)"));
}

TEST_CASE("st.async needs a real cluster and 32-bit elements") {
    std::string one = with("cluster: [2]", "cluster: [1]");
    one = test::with(one, "cta: \"(rank + 1) % 2\"", "cta: 0");
    one = test::with(one, "cta: \"1 - rank\"", "cta: 0");
    one = test::with(one, "cta: 0, by: thread1", "by: thread1");
    CHECK_THAT(error_of(one), Catch::Contains("st.async.op: st.async needs a cluster of more than one CTA"));
    CHECK_THAT(error_of(with("peer: {type: i32", "peer: {type: f16")),
               Catch::Contains("st.async.buffer: st.async stores 32-bit elements; peer holds f16"));
    CHECK_THAT(error_of(with("value: \"7\", barrier", "value: \"7\", width: 2, barrier")),
               Catch::Contains("2 bytes; allowed: 4, 8, 16"));
}

TEST_CASE("cluster barriers run in every thread") {
    CHECK(error_of(with("{op: cluster.wait}", "{op: cluster.wait, by: warp0}")) ==
          "bad.yaml:22:5: error: cluster.wait.by: cluster.wait is the aligned cluster barrier, executed by every "
          "thread of every CTA; allowed: all [PTX 9.7.13.3]");
}

}  // namespace test_cluster_format
