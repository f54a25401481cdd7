// Codegen of the cluster ops: `rank`, DSMEM loads and stores, remote mbarrier ops,
// st.async, multicast loads, fence.proxy.async by state space and the cluster barrier,
// including the closing barrier of a cluster launch and the report of a wait that could
// never return. Every kernel here also goes through NVRTC for sm_90a and sm_100a.
#include <catch2/catch.hpp>

#include "device/emit/codegen.h"
#include "device/emit/trace_plan.h"
#include "device/launch/trace_records.h"
#include "device_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;
using namespace tmasim::device;
using namespace tmasim::device::test;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_codegen_cluster {

namespace {

const char* kCluster = R"yaml(
scenario: cluster_codegen
summary: every cluster op in one 2-CTA cluster program
arch: sm_90
launch: {grid: [4], cluster: [2], block: 64}
global:
  A: {type: f32, shape: [64, 64], init: iota}
  B: {type: f32, shape: [1024], init: iota}
tensormaps:
  mapA: {tensor: A, box: [16, 64]}
shared:
  tile: {type: f32, shape: [16, 64]}
  vec: {type: f32, shape: [256]}
  ints: {type: i32, shape: [64]}
barriers:
  full: {}
  peer: {}
program:
  - {op: mbarrier.init, barrier: full, count: 1, by: thread0}
  - {op: mbarrier.init, barrier: peer, count: 1, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: cluster.sync}
  - {op: mbarrier.arrive_expect_tx, barrier: full, bytes: 5120, by: thread0}
  - {op: tma.load, map: mapA, coords: ["rank*16", 0], dst: tile, barrier: full, multicast: 3, by: thread0}
  - {op: bulk.load, global: B, offset: 0, bytes: 1024, dst: vec, barrier: full, multicast: "1 << rank", by: thread1}
  - {op: mbarrier.wait, barrier: full, parity: 0}
  - {op: mbarrier.expect_tx, barrier: peer, bytes: 256, cta: "1 - rank", by: thread0}
  - {op: mbarrier.arrive, barrier: peer, cta: "(rank+1)%2", by: thread0}
  - {op: st.async, buffer: ints, index: tid, width: 4, value: "tid + rank", barrier: peer, cta: "(rank+1)%2", by: all}
  - {op: st.async, buffer: vec, index: "tid*4", width: 16, value: "tid * 0.5", barrier: peer, cta: "1 - rank", barrier_cta: "1 - rank", by: "tid < 16"}
  - {op: mbarrier.arrive_expect_tx, barrier: peer, bytes: 0, cta: "1 - rank", by: thread1}
  - {op: shared.store, buffer: vec, index: "tid*4", width: 16, value: "tid * 0.5", cta: "1 - rank"}
  - {op: shared.load, buffer: vec, index: "tid*2", width: 8, cta: "rank ^ 1"}
  - {op: shared.load, buffer: ints, index: tid, cta: 0}
  - {op: fence.proxy.async, space: cluster}
  - {op: fence.proxy.async, space: global}
  - {op: fence.proxy.async, space: all}
  - {op: fence.proxy.async}
  - {op: cluster.arrive, relaxed: true}
  - {op: cluster.wait}
  - {op: cluster.arrive}
expect:
  outcome: ok
)yaml";

Scenario load(const std::string& text, const char* name) {
    try {
        return load_scenario_text(text, name);
    } catch (const std::exception& e) {
        FAIL("the test scenario does not load: " << e.what());
    }
    return {};
}

// The text of op `id`'s block: from its comment to the next op's.
std::string op_block(const std::string& src, int id) {
    const std::string begin = "// op " + std::to_string(id) + ":";
    const size_t b = src.find(begin);
    if (b == std::string::npos) return "";
    const size_t e = src.find("// op " + std::to_string(id + 1) + ":", b);
    return src.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST_CASE("cluster ops generate the PTX forms of PTX 9.7.9 and 9.7.13", "[device][codegen][cluster][nvrtc]") {
    const Scenario s = load(kCluster, "cluster_codegen.yaml");
    const std::string src = generate_kernel_source(s);
    const std::string body = src.substr(src.find("extern \"C\""));
    INFO(body);
    require_compiles(src, "sm_90a");
    require_compiles(src, "sm_100a");

    // `rank` is %cluster_ctarank, read once; `cta` stays the flat block index.
    CHECK(has(body, "const long long cluster_rank = (long long)read_cluster_ctarank();"));
    CHECK(has(body, "const long long cta_rank = (long long)blockIdx.x;"));
    CHECK(has(op_block(body, 5),
              "cp_async_bulk_tensor_2d_shared_cluster_global_tile_mbarrier_multicast_cluster(smem_base + 0u, &tmap0, "
              "(int)((long long)((0LL))), (int)((long long)(((cluster_rank) * (16LL)))), smem_base + 5376u, "
              "(unsigned short)((long long)((3LL))));"));
    CHECK(has(op_block(body, 6),
              "cp_async_bulk_shared_cluster_global_mbarrier_multicast_cluster(smem_base + 4096u, global1 + "
              "((long long)((0LL))) * 4ll, (unsigned)((long long)((1024LL))), smem_base + 5376u, "
              "(unsigned short)((long long)(((1LL) << ((cluster_rank) & 63LL)))));"));

    // Remote barriers: mapa of the local barrier's address, then the shared::cluster form.
    const std::string expect_tx = op_block(body, 8);
    CHECK(has(expect_tx, "const unsigned peer_bar = mapa_shared_cluster_u32(smem_base + 5384u, "
                         "(unsigned)((long long)(((1LL) - (cluster_rank)))));"));
    CHECK(has(expect_tx, "mbarrier_expect_tx_relaxed_cluster_shared_cluster_b64(peer_bar, "
                         "(unsigned)((long long)((256LL))));"));
    CHECK(has(op_block(body, 9), "mbarrier_arrive_release_cluster_shared_cluster_b64(peer_bar, "
                                 "(unsigned)((long long)((1LL))));"));
    CHECK(has(op_block(body, 12), "mbarrier_arrive_expect_tx_release_cluster_shared_cluster_b64(peer_bar, "
                                  "(unsigned)((long long)((0LL))));"));
    CHECK(!has(expect_tx, "mbarrier_expect_tx_relaxed_cta_shared_cta_b64"));

    // st.async: element and barrier through mapa, the value's bits as shared.store writes them.
    const std::string st1 = op_block(body, 10);
    CHECK(has(st1, "const unsigned dst = mapa_shared_cluster_u32(smem_base + 5120u + (unsigned)"
                   "(((long long)(((long long)tid))) * 4ll), (unsigned)((long long)((((cluster_rank) + (1LL)) % (2LL)))));"));
    CHECK(has(st1, "const unsigned word = (unsigned)(long long)((((long long)tid) + (cluster_rank)));"));
    CHECK(has(st1, "st_async_shared_cluster_mbarrier_complete_tx_bytes_b32(dst, word, peer_bar);"));
    const std::string st4 = op_block(body, 11);
    CHECK(has(st4, "const unsigned word = __float_as_uint((float)((((float)tid) * 5.000000000e-01f)));"));
    CHECK(has(st4, "st_async_shared_cluster_mbarrier_complete_tx_bytes_v4_b32(dst, word, word, word, word, peer_bar);"));

    // DSMEM: the same volatile accesses, in the shared::cluster window.
    const std::string store = op_block(body, 13);
    CHECK(has(store, "const unsigned addr = mapa_shared_cluster_u32(smem_base + 4096u + (unsigned)"
                     "(((long long)((((long long)tid) * (4LL)))) * 4ll), (unsigned)((long long)(((1LL) - (cluster_rank)))));"));
    CHECK(has(store, "st_volatile_shared_cluster_v4_b32(addr, word, word, word, word);"));
    const std::string load2 = op_block(body, 14);
    CHECK(has(load2, "ld_volatile_shared_cluster_v2_b32(addr, d0, d1);"));
    CHECK(has(load2, "= (unsigned)read_clock64_after(load_sink);  // op 14 ends"));
    CHECK(has(op_block(body, 15), "xor_b32_sink(load_sink, ld_volatile_shared_cluster_b32(addr));"));

    CHECK(has(op_block(body, 16), "fence_proxy_async_shared_cluster();"));
    CHECK(has(op_block(body, 17), "fence_proxy_async_global();"));
    CHECK(has(op_block(body, 18), "fence_proxy_async();"));
    CHECK(has(op_block(body, 19), "fence_proxy_async_shared_cta();"));

    // The cluster barrier, traced as issue/complete (as the model does).
    const std::string sync = op_block(body, 3);
    CHECK(has(sync, "barrier_cluster_arrive_aligned();\n        barrier_cluster_wait_aligned();\n"
                    "        cluster_arrived = false;"));
    CHECK(has(sync, "= (unsigned)trace_clock64();  // op 3 ends"));
    CHECK(has(op_block(body, 20), "barrier_cluster_arrive_relaxed_aligned();\n        cluster_arrived = true;"));
    const std::string wait = op_block(body, 21);
    CHECK(has(wait, "if (!cluster_arrived) {"));
    CHECK(has(wait, "report_cluster_wait_unarrived(status, 21, (int)blockIdx.x, warp, lane, 0, it[0], it[1], it[2], it[3]);"));
    CHECK(has(wait, "trace_hang(trace_hdr, entry_clock, entry_ns, start_clock, leader_lane, "));
    CHECK(has(wait, "barrier_cluster_wait_aligned();\n        cluster_arrived = false;"));

    // The closing cluster barrier comes before the CTA barrier and the shared-memory dump,
    // and uses the arrive op 22 left unwaited.
    const size_t closing = body.find("if (!cluster_arrived) barrier_cluster_arrive_aligned();\n"
                                     "    barrier_cluster_wait_aligned();\n");
    REQUIRE(closing != std::string::npos);
    const size_t cta_barrier = body.find("barrier_sync_aligned_0();", closing);
    CHECK(cta_barrier != std::string::npos);
    CHECK(cta_barrier < body.find("unsigned char* const dump ="));
}

TEST_CASE("a kernel without clusters has no cluster barrier", "[device][codegen][cluster]") {
    const Scenario s = load_scenario_file(source_dir() + "/scenarios/catalog/guide/tma_2d_load_modify_store.yaml");
    const std::string src = generate_kernel_source(s);
    const std::string body = src.substr(src.find("extern \"C\""));
    CHECK(has(body, "read_cluster_ctarank()"));  // `rank` exists (0) in every kernel
    CHECK(!has(body, "cluster_arrived"));
    CHECK(!has(body, "barrier_cluster_"));
}

TEST_CASE("cluster barrier ops without a cluster launch still track their arrive", "[device][codegen][cluster][nvrtc]") {
    std::string text = kCluster;
    text.replace(text.find("launch: {grid: [4], cluster: [2], block: 64}"), 44, "launch: {grid: [2], block: 64}");
    // st.async needs a cluster: keep the cluster-barrier ops and the local ones only.
    std::string program = R"yaml(program:
  - {op: cluster.arrive}
  - {op: cluster.wait}
  - {op: cluster.arrive}
expect:)yaml";
    text.replace(text.find("program:"), text.find("expect:") + 7 - text.find("program:"), program);
    const Scenario s = load(text, "cluster_barrier_only.yaml");
    const std::string src = generate_kernel_source(s);
    const std::string body = src.substr(src.find("extern \"C\""));
    require_compiles(src, "sm_90a");
    CHECK(has(body, "bool cluster_arrived = false;"));
    // No closing barrier: a single-CTA cluster has no peers to wait for.
    CHECK(!has(body, "if (!cluster_arrived) barrier_cluster_arrive_aligned();"));
}

TEST_CASE("trace words count loops whose length depends on rank", "[device][codegen][cluster]") {
    std::string text = kCluster;
    const std::string program = R"yaml(program:
  - op: loop
    var: i
    count: "rank + 2"
    body:
      - {op: fence.proxy.async}
  - {op: cluster.sync}
expect:)yaml";
    text.replace(text.find("program:"), text.find("expect:") + 7 - text.find("program:"), program);
    const Scenario s = load(text, "rank_loop.yaml");
    // Rank 1 runs 3 fences and the sync: a clock word each.
    CHECK(trace_words_per_warp(s, plan_trace(s, TraceLevel::all)) == 3 + 1);
}

}  // namespace test_codegen_cluster
