// Small cluster programs on the model, each showing one rule: fence.proxy.async's state
// space, a peer's DSMEM bytes read by the owner's TMA store, the cluster barrier's hangs and
// double arrives, a CTA exiting under a peer's access, init publication through a relaxed
// cluster arrive, a remote arrive publishing DSMEM stores, and the cluster barrier's timing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "model/core/arch_config.h"
#include "model/run/run_model.h"
#include "scenarios/loader.h"
#include "scenarios/values.h"

using namespace tmasim;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_cluster_programs {

namespace {
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto pos = text.find(from);
    REQUIRE(pos != std::string::npos);
    return text.replace(pos, from.size(), to);
}

RunResult run_text(const std::string& text) { return run_model(load_scenario_text(text, "cluster_test.yaml")); }

std::string messages(const RunResult& r) {
    std::string s;
    for (const auto& d : r.diagnostics) s += "\n  [" + d.rule + "] " + d.message;
    return s;
}

int op_id(const std::string& text, const std::string& label) {
    const Scenario s = load_scenario_text(text, "cluster_test.yaml");
    for (const Op* op : s.all_ops())
        if (op->label == label) return op->id;
    FAIL("no op labelled " << label);
    return -1;
}

// Rank 0 writes 64 i32 into rank 1's `buf` through DSMEM, fences with FENCE, the cluster
// syncs, and rank 1 bulk-stores its buf to global memory (an async-proxy read of the peer's
// generic writes). OWNER_FENCE is rank 1's optional fence after the sync.
const char* kPeerStore = R"(
scenario: peer_bytes_to_tma_store
launch: {grid: [2], cluster: [2], block: 64}
global:
  out: {type: i32, shape: [128]}
shared:
  buf: {type: i32, shape: [64]}
program:
  - op: loop
    var: i
    count: "1 - rank"
    body:
      - {op: shared.store, buffer: buf, index: "tid", value: "tid + 7", cta: 1, label: put}
      - FENCE
  - {op: cluster.sync}
  - OWNER_FENCE
  - op: loop
    var: j
    count: "rank"
    body:
      - {op: bulk.store, src: buf, global: out, offset: 0, bytes: 256, by: thread0, label: store}
      - {op: bulk.commit_group, by: thread0}
      - {op: bulk.wait_group, n: 0, by: thread0}
)";

std::string peer_store(const std::string& fence, const std::string& owner_fence) {
    std::string t = replaced(kPeerStore, "- FENCE", fence.empty() ? "- {op: sync}" : fence);
    return replaced(t, "- OWNER_FENCE", owner_fence.empty() ? "- {op: sync}" : owner_fence);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}
}  // namespace

TEST_CASE("fence.proxy.async: the .global form does not cover shared memory", "[model][cluster][proxy]") {
    const std::string guide = read_file(std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/guide/tma_2d_load_modify_store.yaml");
    const std::string fence = "{op: fence.proxy.async}";
    REQUIRE(guide.find(fence) != std::string::npos);
    for (const char* space : {"cta", "cluster", "all"}) {
        const RunResult r = run_text(replaced(guide, fence, std::string("{op: fence.proxy.async, space: ") + space + "}"));
        INFO(space << messages(r));
        CHECK(r.outcome == Outcome::ok);
    }
    const RunResult r = run_text(replaced(guide, fence, "{op: fence.proxy.async, space: global}"));
    INFO(messages(r));
    REQUIRE(r.outcome == Outcome::hazard);
    CHECK(r.diagnostics.front().rule == "proxy.generic_to_async");
}

TEST_CASE("DSMEM bytes read by the owner's TMA store need a fence covering shared::cluster", "[model][cluster][proxy]") {
    const std::string cta_fence = peer_store("- {op: fence.proxy.async, space: cta}", "");
    const RunResult bad = run_text(cta_fence);
    INFO(messages(bad));
    REQUIRE(bad.outcome == Outcome::hazard);
    REQUIRE(bad.diagnostics.size() == 1);
    const Diagnostic& d = bad.diagnostics.front();
    CHECK(d.rule == "proxy.generic_to_async");
    CHECK(d.op == op_id(cta_fence, "store"));
    CHECK(d.cta == 1);
    CHECK(d.detail.at("first_byte") == "0");
    CHECK(d.detail.at("last_byte") == "255");
    CHECK(d.message.find("of CTA 0 (rank 0)") != std::string::npos);
    CHECK(run_text(peer_store("", "")).outcome == Outcome::hazard);  // no fence at all
    for (const auto& [fence, owner] : std::vector<std::pair<std::string, std::string>>{
             {"- {op: fence.proxy.async, space: cluster}", ""},
             {"- {op: fence.proxy.async, space: all}", ""},
             {"", "- {op: fence.proxy.async}"}}) {  // the issuer fences after the sync brought the writes
        const RunResult ok = run_text(peer_store(fence, owner));
        INFO(fence << " / " << owner << messages(ok));
        CHECK(ok.outcome == Outcome::ok);
        const auto& out = ok.memory.front();
        REQUIRE(out.name == "out");
        CHECK(load_element_int(out.bytes.data(), DType::i32, 63) == 63 + 7);
    }
}

TEST_CASE("cluster.wait without an arrive hangs as cluster.deadlock, naming who never arrives", "[model][cluster]") {
    const std::string text = R"(
scenario: wait_without_arrive
launch: {grid: [2], cluster: [2], block: 32}
program:
  - {op: cluster.wait, label: wait}
)";
    const RunResult r = run_text(text);
    INFO(messages(r));
    REQUIRE(r.outcome == Outcome::hang);
    REQUIRE(r.diagnostics.size() == 2);
    for (const auto& d : r.diagnostics) {
        CHECK(d.rule == "cluster.deadlock");
        CHECK(d.op == op_id(text, "wait"));
        CHECK(d.detail.at("missing") == "CTA 0 (rank 0) threads 0-31; CTA 1 (rank 1) threads 0-31");
        CHECK(d.detail.at("rank") == std::to_string(d.cta));
    }
}

TEST_CASE("cluster.sync hangs while a peer's threads are stuck elsewhere", "[model][cluster]") {
    const std::string text = R"(
scenario: peer_stuck
launch: {grid: [2], cluster: [2], block: 64}
barriers:
  bar: {}
program:
  - {op: mbarrier.init, barrier: bar, count: 1, by: thread0}
  - {op: sync}
  - op: loop
    var: i
    count: "rank"
    body:
      - {op: mbarrier.wait, barrier: bar, parity: 0, label: stuck}
  - {op: cluster.sync, label: join}
)";
    const RunResult r = run_text(text);
    INFO(messages(r));
    REQUIRE(r.outcome == Outcome::hang);
    REQUIRE(r.diagnostics.size() == 2);
    CHECK(r.diagnostics[0].cta == 0);
    CHECK(r.diagnostics[0].rule == "cluster.deadlock");
    CHECK(r.diagnostics[0].op == op_id(text, "join"));
    CHECK(r.diagnostics[0].detail.at("missing") == "CTA 1 (rank 1) threads 0-63");
    CHECK(r.diagnostics[1].cta == 1);
    CHECK(r.diagnostics[1].rule == "mbarrier.pending_arrivals");
    CHECK(r.diagnostics[1].op == op_id(text, "stuck"));
}

TEST_CASE("a second cluster.arrive before the wait is reported", "[model][cluster]") {
    const std::string text = R"(
scenario: double_arrive
launch: {grid: [2], cluster: [2], block: 32}
program:
  - {op: cluster.arrive, label: first}
  - {op: cluster.arrive, label: second}
  - {op: cluster.wait, label: wait}
)";
    const RunResult r = run_text(text);
    INFO(messages(r));
    REQUIRE(r.outcome == Outcome::hazard);
    REQUIRE(r.diagnostics.size() == 2);  // once per CTA (per op instance)
    for (const auto& d : r.diagnostics) {
        CHECK(d.rule == "cluster.double_arrive");
        CHECK(d.op == op_id(text, "second"));
        CHECK(d.detail.at("phase") == "0");
    }
}

TEST_CASE("a CTA that exits under a peer's DSMEM store", "[model][cluster][dsmem]") {
    const std::string text = R"(
scenario: peer_exits
launch: {grid: [2], cluster: [2], block: 32}
shared:
  buf: {type: i32, shape: [32]}
program:
  - op: loop
    var: i
    count: "rank"
    body:
      - {op: shared.store, buffer: buf, index: "tid", value: "1", cta: 0, label: put}
  - END
)";
    const RunResult bad = run_text(replaced(text, "  - END\n", ""));
    INFO(messages(bad));
    REQUIRE(bad.outcome == Outcome::hazard);
    REQUIRE(!bad.diagnostics.empty());
    CHECK(bad.diagnostics.front().rule == "cluster.peer_exited");
    CHECK(bad.diagnostics.front().op == op_id(replaced(text, "  - END\n", ""), "put"));
    CHECK(bad.diagnostics.front().cta == 1);
    // A cluster.sync before exiting orders the store before rank 0's exit.
    const RunResult ok = run_text(replaced(text, "  - END\n", "  - {op: cluster.sync}\n"));
    INFO(messages(ok));
    CHECK(ok.outcome == Outcome::ok);
}

TEST_CASE("init publication: fence.mbarrier_init makes a relaxed cluster arrive enough", "[model][cluster][mbarrier]") {
    // CUTLASS's pattern: init, fence.mbarrier_init, barrier.cluster.arrive.relaxed, wait; then
    // rank 1 arrives on rank 0's barrier, which rank 0 waits on.
    const std::string text = R"(
scenario: relaxed_init_publication
launch: {grid: [2], cluster: [2], block: 32}
barriers:
  bar: {}
program:
  - {op: mbarrier.init, barrier: bar, count: 1, by: thread0}
  - FENCE
  - {op: cluster.arrive, relaxed: true}
  - {op: cluster.wait}
  - op: loop
    var: i
    count: "rank"
    body:
      - {op: mbarrier.arrive, barrier: bar, cta: 0, by: thread0, label: remote}
  - op: loop
    var: j
    count: "1 - rank"
    body:
      - {op: mbarrier.wait, barrier: bar, parity: 0}
  - {op: cluster.sync}
)";
    const RunResult ok = run_text(replaced(text, "- FENCE", "- {op: fence.mbarrier_init, by: thread0}"));
    INFO(messages(ok));
    CHECK(ok.outcome == Outcome::ok);
    const std::string unfenced = replaced(text, "- FENCE", "- {op: sync}");
    const RunResult bad = run_text(unfenced);
    INFO(messages(bad));
    REQUIRE(bad.outcome == Outcome::hazard);
    REQUIRE(bad.diagnostics.size() == 1);
    CHECK(bad.diagnostics[0].rule == "mbarrier.remote_before_init_published");
    CHECK(bad.diagnostics[0].op == op_id(unfenced, "remote"));
    // A default (.release) arrive publishes the init without the restricted fence.
    std::string release = replaced(text, "- FENCE", "- {op: sync}");
    release = replaced(release, "{op: cluster.arrive, relaxed: true}", "{op: cluster.arrive}");
    CHECK(run_text(release).outcome == Outcome::ok);
}

TEST_CASE("a remote arrive publishes the DSMEM stores before it, not those after", "[model][cluster][dsmem][mbarrier]") {
    const std::string text = R"(
scenario: remote_arrive_publishes
launch: {grid: [2], cluster: [2], block: 32}
shared:
  buf: {type: i32, shape: [32]}
barriers:
  bar: {}
program:
  - {op: mbarrier.init, barrier: bar, count: 32, by: thread0}
  - {op: cluster.sync}
  - op: loop
    var: i
    count: "rank"
    body:
      - FIRST
      - SECOND
  - op: loop
    var: j
    count: "1 - rank"
    body:
      - {op: mbarrier.wait, barrier: bar, parity: 0}
      - {op: shared.load, buffer: buf, index: "tid", label: read}
  - {op: cluster.sync}
)";
    const std::string put = "{op: shared.store, buffer: buf, index: \"tid\", value: \"tid * 3\", cta: 0, label: put}";
    const std::string arrive = "{op: mbarrier.arrive, barrier: bar, cta: 0}";
    const RunResult ok = run_text(replaced(replaced(text, "FIRST", put), "SECOND", arrive));
    INFO(messages(ok));
    REQUIRE(ok.outcome == Outcome::ok);
    for (const auto& m : ok.memory)
        if (m.name == "buf" && m.cta == 0) CHECK(load_element_int(m.bytes.data(), DType::i32, 31) == 93);
    const std::string late = replaced(replaced(text, "FIRST", arrive), "SECOND", put);
    const RunResult bad = run_text(late);
    INFO(messages(bad));
    REQUIRE(bad.outcome == Outcome::hazard);
    CHECK(bad.diagnostics.front().rule == "race.dsmem_unsynced");
    CHECK(bad.diagnostics.front().op == op_id(late, "read"));
    CHECK(bad.diagnostics.front().detail.at("other_op") == std::to_string(op_id(late, "put")));
}

TEST_CASE("cluster.sync: every waiter goes on cluster_barrier_cycles after the last arrival", "[model][cluster][timing]") {
    const Scenario s = load_scenario_file(std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/cluster/dsmem_exchange.yaml");
    const RunResult r = run_model(s);
    REQUIRE(r.outcome == Outcome::ok);
    int sync_op = -1;
    for (const Op* op : s.all_ops())
        if (op->label == "exchange") sync_op = op->id;
    // Per cluster: the last warp's arrival is its issue; a .release arrive reaches the barrier
    // cluster_release_cycles later, and the barrier completes cluster_barrier_cycles after that.
    const model::TimingParams tp = model::ArchConfig::load_named("h100-sxm", TMASIM_ARCH_DIR).timing();
    const int64_t release = static_cast<int64_t>(tp.cluster_release_cycles);
    const int64_t barrier = static_cast<int64_t>(tp.cluster_barrier_cycles);
    for (int cluster = 0; cluster < 2; ++cluster) {
        int64_t last_arrival = -1;
        std::vector<int64_t> completes;
        for (const auto& e : r.events) {
            if (e.op != sync_op || e.cta / 2 != cluster) continue;
            if (e.kind == EventKind::issue) last_arrival = std::max(last_arrival, e.t);
            if (e.kind == EventKind::complete) completes.push_back(e.t);
        }
        REQUIRE(completes.size() == 4);  // 2 CTAs x 2 warps
        for (int64_t t : completes) CHECK(t == last_arrival + release + barrier);  // h100-sxm, the default arch
    }
}

TEST_CASE("st.async over bytes the consumer may still read: the STAS ring without `ready`", "[model][cluster][st_async]") {
    std::string ring = read_file(std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/guide/st_async_ring.yaml");
    ring = replaced(ring, "      - {op: mbarrier.wait, barrier: ready, parity: \"it % 2\", label: wait_ready}\n", "");
    ring = replaced(ring, "count: 32", "count: 2");
    const RunResult r = run_text(ring);
    INFO(messages(r));
    REQUIRE(r.outcome == Outcome::hazard);
    // Iteration 1's stores overwrite what the next CTA's threads read in iteration 0, with
    // nothing ordering the read before the write: one report per producing CTA. (The last
    // remote arrives on `ready` are not waited for either: cluster.peer_exited.)
    int races = 0;
    for (const auto& d : r.diagnostics) {
        CHECK((d.rule == "race.dsmem_unsynced" || d.rule == "cluster.peer_exited"));
        if (d.rule == "cluster.peer_exited") {
            CHECK(d.op == op_id(ring, "release_prev"));
            continue;
        }
        ++races;
        CHECK(d.op == op_id(ring, "produce"));
        CHECK(d.iters == std::vector<int64_t>{1});
        CHECK(d.detail.at("other_op") == std::to_string(op_id(ring, "consume")));
        CHECK(std::stoi(d.detail.at("other_cta")) == (d.cta + 1) % 8);
    }
    CHECK(races == 8);
}

}  // namespace test_cluster_programs
