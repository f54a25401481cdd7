// Cluster and tensor-map kernels on a real GPU ([gpu]; they skip where no driver is): the
// bytes multicast, DSMEM stores, st.async and remote barriers deliver, a cluster wait that
// could never return reported as a hang at that op (and the kernel ending), and a map in
// global memory modified on the device and used by TMA.
#include <catch2/catch.hpp>

#include "device/launch/cuda_driver.h"
#include "device/run/run_device.h"
#include "device_test_support.h"
#include "scenarios/loader.h"
#include "scenarios/values.h"

using namespace tmasim;
using namespace tmasim::device;

namespace {

const char* kClusterValues = R"yaml(
scenario: cluster_values
summary: multicast, DSMEM, st.async and remote barriers in a 2-CTA cluster, with checkable bytes
arch: sm_90
launch: {grid: [4], cluster: [2], block: 64}
global:
  A: {type: f32, shape: [32, 64], init: iota}
  B: {type: f32, shape: [256], init: iota}
tensormaps:
  mapA: {tensor: A, box: [16, 64]}
shared:
  tile: {type: f32, shape: [16, 64]}
  vec: {type: f32, shape: [256]}
  ints: {type: i32, shape: [64]}
  sa: {type: i32, shape: [64]}
  sa2: {type: i32, shape: [64]}
  sa3: {type: f32, shape: [256]}
barriers:
  full: {}
  peer: {}
  peer2: {}
  peer3: {}
  rem: {}
program:
  - {op: mbarrier.init, barrier: full, count: 1, by: thread0}
  - {op: mbarrier.init, barrier: peer, count: 1, by: thread0}
  - {op: mbarrier.init, barrier: peer2, count: 1, by: thread0}
  - {op: mbarrier.init, barrier: peer3, count: 1, by: thread0}
  - {op: mbarrier.init, barrier: rem, count: 2, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: cluster.sync}
  - {op: mbarrier.arrive_expect_tx, barrier: full, bytes: 5120, by: thread0}
  - {op: cluster.sync, label: expects_armed}
  - op: loop
    var: i
    count: "1 - rank"
    body:
      - {op: tma.load, map: mapA, coords: ["16 * (cta / 2)", 0], dst: tile, barrier: full, multicast: 3, by: thread0, label: mc_tma}
  - op: loop
    var: j
    count: "rank"
    body:
      - {op: bulk.load, global: B, offset: 0, bytes: 1024, dst: vec, barrier: full, multicast: 3, by: thread0, label: mc_bulk}
  - {op: mbarrier.wait, barrier: full, parity: 0, label: wait_full}
  - {op: shared.store, buffer: ints, index: tid, value: "tid + 100 * rank", cta: "1 - rank", label: dsmem_store}
  - {op: mbarrier.arrive_expect_tx, barrier: peer, bytes: 256, by: thread0}
  - {op: st.async, buffer: sa, index: tid, value: "2 * tid + rank", barrier: peer, cta: "1 - rank", label: st_async_b32}
  - {op: mbarrier.expect_tx, barrier: peer2, bytes: 256, cta: "1 - rank", by: thread0, label: remote_expect}
  - {op: st.async, buffer: sa2, index: tid, width: 4, value: "3 * tid + rank", barrier: peer2, cta: "1 - rank"}
  - {op: mbarrier.arrive_expect_tx, barrier: peer3, bytes: 1024, cta: "1 - rank", by: thread1, label: remote_aet}
  - {op: st.async, buffer: sa3, index: "4 * tid", width: 16, value: "tid * 0.5 + rank", barrier: peer3, cta: "1 - rank"}
  - {op: mbarrier.arrive, barrier: rem, cta: "1 - rank", by: thread0, label: remote_arrive}
  - {op: mbarrier.arrive, barrier: rem, by: thread0}
  - {op: cluster.sync, label: stores_done}
  - {op: mbarrier.arrive, barrier: peer2, by: thread0}
  - {op: mbarrier.wait, barrier: peer, parity: 0}
  - {op: mbarrier.wait, barrier: peer2, parity: 0}
  - {op: mbarrier.wait, barrier: peer3, parity: 0}
  - {op: mbarrier.wait, barrier: rem, parity: 0}
  - {op: shared.load, buffer: ints, index: tid, cta: 0, width: 4}
  - {op: cluster.sync, label: before_exit}
expect:
  outcome: ok
)yaml";

const char* kClusterWaitUnarrived = R"yaml(
scenario: cluster_wait_unarrived
summary: rank 1 waits on the cluster barrier without having arrived; rank 0 arrives and waits
arch: sm_90
launch: {grid: [2], cluster: [2], block: 64}
shared:
  buf: {type: i32, shape: [64]}
program:
  - {op: shared.store, buffer: buf, index: tid, value: "tid + rank"}
  - op: loop
    var: i
    count: "1 - rank"
    body:
      - {op: cluster.arrive}
  - {op: cluster.wait, label: stuck}
expect:
  outcome: hang
  op: stuck
)yaml";

const char* kDeviceModifiedMap = R"yaml(
scenario: tmap_values
summary: stage, replace (address, box, dims, strides) in shared memory, publish with cp_fenceproxy, acquire, load
arch: sm_90
launch: {grid: [2], block: 64}
global:
  A: {type: f32, shape: [64, 64], init: {fill: 7}}
  A2: {type: f32, shape: [64, 64], init: iota}
  C: {type: f32, shape: [64, 64], init: {fill: 0}}
tensormaps:
  mapA: {tensor: A, box: [16, 64], location: global}
  mapC: {tensor: C, box: [16, 64], location: global}
shared:
  tile: {type: f32, shape: [16, 64]}
barriers:
  full: {}
program:
  - {op: mbarrier.init, barrier: full, count: 1, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: tensormap.stage, map: mapA, by: thread0}
  - {op: tensormap.replace, map: mapA, field: global_address, global: A2, space: shared, by: thread0}
  - {op: tensormap.replace, map: mapA, field: box_dim, dim: 0, value: 8, space: shared, by: thread0}
  - {op: tensormap.replace, map: mapA, field: global_dim, dim: 0, value: 32, space: shared, by: thread0}
  - {op: tensormap.replace, map: mapA, field: global_stride, dim: 0, value: 256, space: shared, by: thread0}
  - {op: tensormap.replace, map: mapA, field: element_stride, dim: 1, value: 1, space: shared, by: thread0}
  - {op: sync}
  - {op: tensormap.cp_fenceproxy, map: mapA, scope: gpu, by: warp0}
  - {op: sync}
  - {op: fence.proxy.tensormap.acquire, map: mapA, scope: gpu, by: thread0}
  - {op: mbarrier.arrive_expect_tx, barrier: full, bytes: 2048, by: thread0}
  - {op: tma.load, map: mapA, coords: ["8 * cta", 0], dst: tile, barrier: full, by: thread0}
  - {op: mbarrier.wait, barrier: full, parity: 0}
  - {op: tensormap.replace, map: mapC, field: box_dim, dim: 0, value: 8, space: global, by: thread0}
  - {op: fence.proxy.tensormap.release, scope: gpu, by: thread0}
  - {op: fence.proxy.tensormap.acquire, map: mapC, scope: gpu, by: thread0}
  - {op: fence.proxy.async}
  - {op: sync}
  - {op: tma.store, map: mapC, coords: ["8 * cta", 0], src: tile, by: thread0}
  - {op: bulk.commit_group, by: thread0}
  - {op: bulk.wait_group, n: 0, by: thread0}
expect:
  outcome: ok
)yaml";

// Runs `yaml` on the GPU; false (with a visible skip) where there is none.
bool run_on_gpu(const char* yaml, const char* name, RunResult& r, double watchdog_s = 1.0) {
    const Scenario s = load_scenario_text(yaml, name);
    DeviceOptions opt;
    opt.watchdog_seconds = watchdog_s;
    try {
        r = run_device(s, opt);
    } catch (const DeviceUnavailable& e) {
        WARN("SKIPPED [gpu] test: " << e.what());
        return false;
    }
    return true;
}

const MemoryImage& image(const RunResult& r, const std::string& name, const std::string& space, int cta) {
    for (const MemoryImage& m : r.memory)
        if (m.name == name && m.space == space && (space == "global" || m.cta == cta)) return m;
    FAIL("no memory image " << space << " " << name << " of cta " << cta);
    return r.memory.front();
}

}  // namespace

TEST_CASE("multicast, DSMEM, st.async and remote barriers deliver their bytes on the GPU", "[device][gpu][cluster]") {
    RunResult r;
    if (!run_on_gpu(kClusterValues, "cluster_values.yaml", r)) return;
    INFO((r.diagnostics.empty() ? std::string() : r.diagnostics.front().message));
    REQUIRE(r.outcome == Outcome::ok);
    for (int cta = 0; cta < 4; ++cta) {
        INFO("cta " << cta);
        const int rank = cta % 2, peer = 1 - rank;
        // Rank 0 multicast rows 16*(cluster) .. +16 of A (iota) into both CTAs' tile.
        const MemoryImage& tile = image(r, "tile", "shared", cta);
        const int64_t first = 16 * 64 * (cta / 2);
        CHECK(load_element_float(tile.bytes.data(), DType::f32, 0) == static_cast<float>(first));
        CHECK(load_element_float(tile.bytes.data(), DType::f32, 1023) == static_cast<float>(first + 1023));
        // Rank 1 multicast B (iota, 256 elements) into both CTAs' vec.
        const MemoryImage& vec = image(r, "vec", "shared", cta);
        CHECK(load_element_float(vec.bytes.data(), DType::f32, 255) == 255.0f);
        for (int64_t t = 0; t < 64; ++t) {
            INFO("element " << t);
            CHECK(load_element_int(image(r, "ints", "shared", cta).bytes.data(), DType::i32, t) == t + 100 * peer);
            CHECK(load_element_int(image(r, "sa", "shared", cta).bytes.data(), DType::i32, t) == 2 * t + peer);
            CHECK(load_element_int(image(r, "sa2", "shared", cta).bytes.data(), DType::i32, t) == 3 * t + peer);
            for (int64_t k = 0; k < 4; ++k)
                CHECK(load_element_float(image(r, "sa3", "shared", cta).bytes.data(), DType::f32, 4 * t + k) ==
                      static_cast<float>(t) * 0.5f + static_cast<float>(peer));
        }
    }
}

TEST_CASE("a cluster wait without an arrive is a hang at that op, and the kernel ends", "[device][gpu][cluster]") {
    RunResult r;
    if (!run_on_gpu(kClusterWaitUnarrived, "cluster_wait_unarrived.yaml", r)) return;
    REQUIRE(r.outcome == Outcome::hang);
    REQUIRE(!r.diagnostics.empty());
    const Diagnostic& d = r.diagnostics.front();
    CHECK(d.rule == "cluster.deadlock");
    CHECK(d.op == 3);
    CHECK(d.cta == 1);
    CHECK(d.message.rfind("hang at op #3 cluster.wait (stuck), cta 1 (rank 1): warp ", 0) == 0);
    // Rank 0 arrived, waited and passed (rank 1's threads had exited): its wait completed;
    // rank 1's was issued and never completed.
    int ended_rank0 = 0, begun_rank1 = 0, ended_rank1 = 0;
    for (const TraceEvent& e : r.events) {
        if (e.op != 3) continue;
        if (e.cta == 0 && e.kind == EventKind::complete) ++ended_rank0;
        if (e.cta == 1 && e.kind == EventKind::issue) ++begun_rank1;
        if (e.cta == 1 && e.kind == EventKind::complete) ++ended_rank1;
    }
    CHECK(ended_rank0 == 2);
    CHECK(begun_rank1 == 2);
    CHECK(ended_rank1 == 0);
}

TEST_CASE("a map in global memory retargeted on the device loads and stores the new tensors", "[device][gpu][tensormap]") {
    RunResult r;
    if (!run_on_gpu(kDeviceModifiedMap, "tmap_values.yaml", r)) return;
    INFO((r.diagnostics.empty() ? std::string() : r.diagnostics.front().message));
    REQUIRE(r.outcome == Outcome::ok);
    // Each CTA loaded 8 rows of A2 (iota) through the retargeted 8-row box and stored them
    // into C through C's map, whose box it also cut to 8 rows in global memory.
    const MemoryImage& c = image(r, "C", "global", 0);
    for (int64_t e = 0; e < 64 * 64; ++e) {
        const float want = e < 16 * 64 ? static_cast<float>(e) : 0.0f;
        if (load_element_float(c.bytes.data(), DType::f32, e) != want)
            FAIL("C[" << e << "] = " << load_element_float(c.bytes.data(), DType::f32, e) << ", want " << want);
    }
}
