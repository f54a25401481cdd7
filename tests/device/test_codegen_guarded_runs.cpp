// An elected producer run (arrive_expect_tx, then its copy) is written as guarded PTX, not as
// a branch (device/ptx_wrappers/ptx_wrappers_guarded.cpp): where every op has a guarded form and no operand
// could trap on a lane that does not issue. Else the branch stays.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "device/emit/codegen.h"
#include "device/emit/kernel_abi.h"
#include "device/ptx_wrappers/ptx_wrappers.h"
#include "device_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;
using namespace tmasim::device;
using tmasim::device::test::require_compiles;

namespace {
// A two-stage TMA producer: `{PRODUCER}` is replaced by the run under test.
const char* kProducer = R"(
scenario: producer
launch: {grid: [1], block: 128}
global:
  src: {type: f32, shape: [256, 64], init: iota}
tensormaps:
  m: {tensor: src, box: [32, 64]}
shared:
  stage: {type: f32, shape: [32, 64], align: 128, array: 2}
barriers:
  full: {array: 2}
program:
  - op: loop
    var: s
    count: 2
    body:
      - {op: mbarrier.init, barrier: "full[s]", count: 1, by: thread0}
  - {op: sync}
  - op: loop
    var: t
    count: 4
    body:
{PRODUCER}
      - {op: mbarrier.wait, barrier: "full[t%2]", parity: "(t/2)%2"}
      - {op: sync}
)";

std::string producer(const std::string& run) {
    std::string text = kProducer;
    text.replace(text.find("{PRODUCER}"), 10, run);
    return text;
}

const char* kArriveAndLoad =
    "      - {op: mbarrier.arrive_expect_tx, barrier: \"full[t%2]\", bytes: 8192, by: elected}\n"
    "      - {op: tma.load, map: m, coords: [\"t*32\", 0], dst: \"stage[t%2]\", barrier: \"full[t%2]\", by: elected}";
}  // namespace

TEST_CASE("an elected arrive_expect_tx and its TMA load are guarded, with no branch", "[device][codegen]") {
    const Scenario s = load_scenario_text(producer(kArriveAndLoad), "producer.yaml");
    for (TraceLevel level : {TraceLevel::none, TraceLevel::all}) {
        INFO("trace level " << static_cast<int>(level));
        const std::string src = generate_kernel_source(s, level);
        CHECK(src.find("const bool run_guard_") != std::string::npos);
        CHECK(src.find("mbarrier_arrive_expect_tx_shared_cta_b64(PtxGuard{run_guard_") != std::string::npos);
        CHECK(src.find("cp_async_bulk_tensor_2d_shared_cluster_global_tile_mbarrier(PtxGuard{run_guard_") !=
              std::string::npos);
        // The elected lane's branch is gone from the kernel's body (only thread0's init keeps one).
        const std::string body = src.substr(src.find("tmasim_scenario_kernel("));
        CHECK(body.find("if (warp == 0 && is_leader)") == std::string::npos);
        require_compiles(src, "sm_90a");
    }
}

TEST_CASE("a run with an op that has no guarded form keeps its branch", "[device][codegen]") {
    // tma.store and bulk.commit_group by the elected lane: the store has no guarded form.
    const Scenario s = load_scenario_text(
        producer(std::string(kArriveAndLoad) +
                 "\n      - {op: tma.store, map: m, coords: [\"t*32\", 0], src: \"stage[t%2]\", by: elected}"
                 "\n      - {op: bulk.commit_group, by: elected}"),
        "producer.yaml");
    const std::string src = generate_kernel_source(s, TraceLevel::none);
    const std::string body = src.substr(src.find("tmasim_scenario_kernel("));
    CHECK(body.find("if (warp == 0 && is_leader)") != std::string::npos);
    CHECK(body.find("cp_async_bulk_tensor_2d_global_shared_cta_tile_bulk_group(&tmap0") != std::string::npos);
}

TEST_CASE("a run whose barrier index is checked at run time keeps its branch", "[device][codegen]") {
    // A loop count the writer cannot evaluate (`cta + 4`): `t%2` is checked at run time (a trap
    // when out of range), which every lane would evaluate without the branch.
    std::string text = producer(kArriveAndLoad);
    const std::string constant_count = "var: t\n    count: 4";
    REQUIRE(text.find(constant_count) != std::string::npos);
    text.replace(text.find(constant_count), constant_count.size(), "var: t\n    count: \"cta + 4\"");
    const Scenario s = load_scenario_text(text, "producer.yaml");
    const std::string src = generate_kernel_source(s, TraceLevel::none);
    const std::string body = src.substr(src.find("tmasim_scenario_kernel("));
    REQUIRE(body.find("checked_index(") != std::string::npos);
    CHECK(body.find("PtxGuard{") == std::string::npos);
    CHECK(body.find("if (warp == 0 && is_leader)") != std::string::npos);
}

TEST_CASE("every guarded wrapper compiles for sm_90a and sm_100a", "[device][ptx][nvrtc]") {
    std::string calls;
    for (int rank = 1; rank <= 5; ++rank) {
        std::string coords;
        for (int i = 0; i < rank; ++i) coords += fmt::format(", {}", i);
        calls += fmt::format("    cp_async_bulk_tensor_{}d_shared_cluster_global_tile_mbarrier(g, s, &tmap{}, b);\n",
                             rank, coords);
        calls += fmt::format("    {}(g, s, &tmap{}, b, (unsigned short)3);\n", multicast_tensor_wrapper_name(rank),
                             coords);
    }
    const std::string src = std::string(ptx_wrappers_source()) + kernel_abi_device_source() +
                            "extern \"C\" __global__ void call_guarded(const __grid_constant__ TensorMapParam tmap,\n"
                            "                                          unsigned char* gl) {\n"
                            "    __shared__ alignas(128) unsigned char buf[1024];\n"
                            "    __shared__ alignas(8) unsigned long long bar[1];\n"
                            "    const unsigned s = cvta_to_shared_u32(buf), b = cvta_to_shared_u32(bar);\n"
                            "    const PtxGuard g{threadIdx.x == 0};\n"
                            "    mbarrier_arrive_expect_tx_shared_cta_b64(g, b, 1024u);\n"
                            "    cp_async_bulk_shared_cluster_global_mbarrier(g, s, gl, 256u, b);\n"
                            "    cp_async_bulk_shared_cluster_global_mbarrier_multicast_cluster(g, s, gl, 256u, b, "
                            "(unsigned short)3);\n" +
                            calls + "}\n";
    CHECK(ptx_guarded_wrapper_names().size() == 3 + 2 * 5);
    for (const char* target : {"sm_90a", "sm_100a"}) {
        INFO("target " << target);
        require_compiles(src, target);
    }
}
