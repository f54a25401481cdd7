// Codegen of the features the catalog does not use yet: loops, arrays of buffers and
// barriers, loop-dependent expressions, float compute, selectors.
#include <catch2/catch.hpp>

#include "device/emit/codegen.h"
#include "device_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;
using namespace tmasim::device;
using namespace tmasim::device::test;

namespace {

const char* kPipeline = R"yaml(
scenario: pipeline_features
summary: double-buffered loads in a loop, float compute, warp roles
arch: sm_90
launch: {grid: [2], block: 96}
global:
  A: {type: f16, shape: [4, 64, 64], init: iota}
  B: {type: bf16, shape: [256], init: {fill: 1}}
  C: {type: u8, shape: [1024], init: iota}
tensormaps:
  mapA: {tensor: A, box: [1, 32, 64], swizzle: 128B}
shared:
  stage: {type: f16, shape: [1, 32, 64], array: 2, align: 1024}
  vec: {type: bf16, shape: [256]}
  bytes: {type: u8, shape: [1024]}
barriers:
  full: {array: 2}
  once: {}
program:
  - {op: mbarrier.init, barrier: "full[0]", count: 1, by: thread0}
  - {op: mbarrier.init, barrier: "full[1]", count: 1, by: thread0}
  - {op: mbarrier.init, barrier: once, count: 95, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: sync}
  - op: loop
    var: i
    count: 4
    body:
      - {op: mbarrier.arrive_expect_tx, barrier: "full[i%2]", bytes: 4096, by: elected1}
      - {op: tma.load, map: mapA, coords: ["i", "32*(i%2)", 0], dst: "stage[i%2]", barrier: "full[i%2]", by: elected1}
      - {op: mbarrier.wait, barrier: "full[i%2]", parity: "(i/2)%2", by: warp1}
      - {op: compute, buffer: "stage[i%2]", fn: "x * 0.5 + idx", by: warp1}
      - {op: fence.proxy.async, by: warp1}
      - {op: tma.store, map: mapA, coords: ["i", "32*(i%2)", 0], src: "stage[i%2]", by: elected1}
      - {op: bulk.commit_group, by: elected1}
      - {op: bulk.wait_group_read, n: 1, by: elected1}
  - {op: bulk.wait_group, n: 0, by: elected1}
  - {op: mbarrier.arrive, barrier: once, by: not_elected}
  - {op: mbarrier.wait, barrier: once, parity: 0}
  - {op: compute, buffer: vec, fn: "x + idx * 0.25", by: not_elected}
  - {op: compute, buffer: bytes, fn: "x * 3 + 250", start: 16, count: 512, by: warp2}
  - {op: sync}
expect:
  outcome: ok
)yaml";

}  // namespace

TEST_CASE("loops, arrays, float compute and selectors compile for sm_90a", "[device][codegen][nvrtc]") {
    Scenario s;
    try {
        s = load_scenario_text(kPipeline, "pipeline_features.yaml");
    } catch (const std::exception& e) {
        FAIL("the test scenario does not load: " << e.what());
    }
    const std::string src = generate_kernel_source(s);
    INFO(src.substr(src.find("extern \"C\"")));
    require_compiles(src, "sm_90a");

    // A short loop of constant count is written out, one copy per iteration, its index a constant.
    CHECK(src.find(": loop, 4 iterations written out") != std::string::npos);
    CHECK(src.find("it[0] = 3;") != std::string::npos);
    // full[i%2] and stage[i%2] stay inside their 2-element arrays for every i: no run-time check.
    CHECK(src.find("checked_index(", src.find("extern \"C\"")) == std::string::npos);
    CHECK(src.find("cp_async_bulk_tensor_3d_shared_cluster_global_tile_mbarrier") != std::string::npos);
    CHECK(src.find("f32_to_f16_bits_rne(") != std::string::npos);
    CHECK(src.find("f32_to_bf16_bits_rne(") != std::string::npos);
    CHECK(src.find("cp_async_bulk_wait_group_read<1>();") != std::string::npos);
    CHECK(src.find("cp_async_bulk_wait_group<0>();") != std::string::npos);
    CHECK(src.find("if (!(warp == 0 && is_leader))") != std::string::npos);
    CHECK(src.find("stage") == std::string::npos);
    CHECK(src.find("x * 0.5") == std::string::npos);
}

TEST_CASE("sync by a subset of threads is refused", "[device][codegen]") {
    std::string text = kPipeline;
    const std::string last = "  - {op: sync}\nexpect:";
    text.replace(text.find(last), last.size(), "  - {op: sync, by: warp0}\nexpect:");
    Scenario s;
    try {
        s = load_scenario_text(text, "bad_sync.yaml");
    } catch (const std::exception& e) {
        SUCCEED("the loader already refuses it: " << e.what());
        return;
    }
    CHECK_THROWS_WITH(generate_kernel_source(s), Catch::Contains("must be executed by all threads"));
}

TEST_CASE("shared dump plan lists array elements in order", "[device][codegen]") {
    const Scenario s = load_scenario_text(kPipeline, "pipeline_features.yaml");
    const SharedDumpPlan plan = plan_shared_dump(s);
    REQUIRE(plan.entries.size() == 4);
    CHECK(plan.entries[0].name == "stage[0]");
    CHECK(plan.entries[1].name == "stage[1]");
    CHECK(plan.entries[2].name == "vec");
    CHECK(plan.entries[3].name == "bytes");
    CHECK(plan.entries[1].dump_offset == 4096);
    CHECK(plan.bytes_per_cta == 4096 * 2 + 512 + 1024);
}
