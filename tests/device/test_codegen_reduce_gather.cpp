// Codegen of bulk.reduce, tma.reduce (sm_90) and Blackwell's tma.gather4 / tma.scatter4
// (sm_100a): each op calls the wrapper of its exact instruction, with coordinates
// fastest-first, and the kernel compiles for both targets (gather4/scatter4 compile to a
// trap on sm_90a, where run_device never launches them).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "device/emit/codegen.h"
#include "device_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;
using namespace tmasim::device;
using namespace tmasim::device::test;

namespace {

const char* kReduceGather = R"yaml(
scenario: reduce_gather_features
summary: gather four rows, scatter them back in a loop, reduce into four element types
arch: sm_100
launch: {grid: [1], block: 64}
global:
  X: {type: bf16, shape: [64, 128], init: iota}
  F: {type: f32, shape: [4, 8, 32], init: {fill: 1}}
  H: {type: f16, shape: [512], init: iota}
  B: {type: bf16, shape: [512], init: iota}
  I: {type: i32, shape: [512], init: iota}
tensormaps:
  rowmap: {tensor: X, box: [1, 64]}
  fmap: {tensor: F, box: [1, 8, 32]}
  imap: {tensor: I, box: [64]}
shared:
  rows4: {type: bf16, shape: [4, 64]}
  facc: {type: f32, shape: [1, 8, 32]}
  hacc: {type: f16, shape: [128]}
  bacc: {type: bf16, shape: [128]}
  iacc: {type: i32, shape: [64]}
barriers:
  bar: {}
program:
  - {op: mbarrier.init, barrier: bar, count: 1, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: sync}
  - {op: mbarrier.arrive_expect_tx, barrier: bar, bytes: 512, by: thread0}
  - {op: tma.gather4, map: rowmap, rows: [3, 10, 17, 63], col: 32, dst: rows4, barrier: bar, by: thread0}
  - {op: mbarrier.wait, barrier: bar, parity: 0}
  - op: loop
    var: i
    count: 2
    body:
      - {op: tma.scatter4, map: rowmap, rows: ["i*4", "i*4+1", "i*4+2", "i*4+3"], col: 0, src: rows4, by: thread0}
  - {op: bulk.reduce, src: hacc, global: H, offset: 128, bytes: 256, reduce: add, by: elected}
  - {op: bulk.reduce, src: hacc, global: H, bytes: 256, reduce: min, by: elected}
  - {op: bulk.reduce, src: bacc, global: B, bytes: 256, reduce: add, by: elected}
  - {op: bulk.reduce, src: iacc, global: I, offset: 64, bytes: 256, reduce: xor, by: elected}
  - {op: tma.reduce, map: fmap, coords: [2, 0, 8], src: facc, reduce: add, by: elected}
  - {op: tma.reduce, map: imap, coords: [64], src: iacc, reduce: max, by: elected}
  - {op: bulk.commit_group, by: elected}
  - {op: bulk.wait_group, n: 0, by: elected}
expect:
  outcome: ok
)yaml";

// The reductions alone, on Hopper.
const char* kReduceOnly = R"yaml(
scenario: reduce_features
summary: bulk and tensor reductions into f32 and i32
arch: sm_90
launch: {grid: [1], block: 32}
global:
  F: {type: f32, shape: [16, 64], init: {fill: 1}}
  I: {type: i32, shape: [256], init: iota}
tensormaps:
  fmap: {tensor: F, box: [4, 64]}
shared:
  facc: {type: f32, shape: [4, 64]}
  iacc: {type: i32, shape: [64]}
program:
  - {op: bulk.reduce, src: facc, global: F, offset: 64, bytes: 256, reduce: add, by: thread0}
  - {op: bulk.reduce, src: iacc, global: I, bytes: 256, reduce: and, by: thread0}
  - {op: tma.reduce, map: fmap, coords: [12, 0], src: facc, reduce: add, by: thread0}
  - {op: bulk.commit_group, by: thread0}
  - {op: bulk.wait_group, n: 0, by: thread0}
expect:
  outcome: ok
)yaml";

Scenario load(const char* text, const char* file) {
    try {
        return load_scenario_text(text, file);
    } catch (const std::exception& e) {
        FAIL("the test scenario does not load: " << e.what());
    }
    return {};
}

// How the kernel writes a constant coordinate.
std::string coord(int v) { return fmt::format("(int)((long long)(({}LL)))", v); }

}  // namespace

TEST_CASE("reductions, gather4 and scatter4 compile for sm_100a and sm_90a", "[device][codegen][nvrtc]") {
    const Scenario s = load(kReduceGather, "reduce_gather_features.yaml");
    const std::string src = generate_kernel_source(s);
    INFO(src.substr(src.find("extern \"C\"")));
    require_compiles(src, "sm_100a");
    require_compiles(src, "sm_90a");

    // gather4: {col, row0, row1, row2, row3}, then the barrier.
    CHECK(src.find(fmt::format("cp_async_bulk_tensor_2d_shared_cluster_global_tile_gather4_mbarrier("
                               "smem_base + 0u, &tmap0, {}, {}, {}, {}, {}, smem_base + ",
                               coord(32), coord(3), coord(10), coord(17), coord(63))) !=
          std::string::npos);
    // scatter4 in the loop (written out: two copies): column 0 first, then the rows of i = 1.
    const std::string scatter4 = "cp_async_bulk_tensor_2d_global_shared_cta_tile_scatter4_bulk_group(&tmap0, " + coord(0) + ", ";
    const size_t first = src.find(scatter4);
    REQUIRE(first != std::string::npos);
    const size_t second = src.find(scatter4, first + 1);
    REQUIRE(second != std::string::npos);
    CHECK(src.find("((1LL) * (4LL))", second) < src.find(";", second));
    // Each bulk reduction names its redOp and type; f16/bf16 add is .noftz.
    CHECK(src.find("cp_reduce_async_bulk_global_shared_cta_bulk_group_add_noftz_f16(global2 + "
                   "((long long)((128LL))) * 2ll, ") != std::string::npos);
    CHECK(src.find("cp_reduce_async_bulk_global_shared_cta_bulk_group_min_f16(global2 + ") !=
          std::string::npos);
    CHECK(src.find("cp_reduce_async_bulk_global_shared_cta_bulk_group_add_noftz_bf16(global3 + ") !=
          std::string::npos);
    CHECK(src.find("cp_reduce_async_bulk_global_shared_cta_bulk_group_xor_b32(global4 + "
                   "((long long)((64LL))) * 4ll, ") != std::string::npos);
    // Tensor reductions: YAML [2, 0, 8] -> PTX {8, 0, 2}.
    CHECK(src.find(fmt::format("cp_reduce_async_bulk_tensor_3d_global_shared_cta_add_tile_bulk_group("
                               "&tmap1, {}, {}, {}, smem_base + ",
                               coord(8), coord(0), coord(2))) != std::string::npos);
    CHECK(src.find("cp_reduce_async_bulk_tensor_1d_global_shared_cta_max_tile_bulk_group(&tmap2, " +
                   coord(64) + ", smem_base + ") != std::string::npos);
    // ... and the wrappers hold the instructions themselves (gather4 and scatter4 as two
    // string literals of the asm statement).
    for (const char* instruction :
         {"\"cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes\"\n"
          "                 \" [%0], [%1, {%2, %3, %4, %5, %6}], [%7];\"",
          "\"cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group\"\n"
          "                 \" [%0, {%1, %2, %3, %4, %5}], [%6];\"",
          "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [%0], [%1], %2;",
          "cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.b32 [%0], [%1], %2;",
          "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group [%0, {%1, %2, %3}], [%4];"}) {
        INFO(instruction);
        CHECK(src.find(instruction) != std::string::npos);
    }
}

TEST_CASE("reductions compile for sm_90a", "[device][codegen][nvrtc]") {
    const Scenario s = load(kReduceOnly, "reduce_features.yaml");
    const std::string src = generate_kernel_source(s);
    INFO(src.substr(src.find("extern \"C\"")));
    require_compiles(src, "sm_90a");
    CHECK(src.find("cp_reduce_async_bulk_global_shared_cta_bulk_group_add_f32(global0 + ") != std::string::npos);
    CHECK(src.find("cp_reduce_async_bulk_global_shared_cta_bulk_group_and_b32(global1 + ") !=
          std::string::npos);
    CHECK(src.find(fmt::format("cp_reduce_async_bulk_tensor_2d_global_shared_cta_add_tile_bulk_group("
                               "&tmap0, {}, {}, smem_base + 0u)",
                               coord(0), coord(12))) != std::string::npos);
}

TEST_CASE("a reduction PTX lacks is a codegen error, not an NVRTC one", "[device][codegen]") {
    // The loader refuses these; codegen checks again rather than name a missing wrapper.
    Scenario s = load(kReduceOnly, "reduce_features.yaml");
    s.program[0].reduce = ReduceOp::max;  // f32 max: no such bulk reduction
    CHECK_THROWS_AS(generate_kernel_source(s), CodegenError);
    CHECK_THROWS_WITH(generate_kernel_source(s), Catch::Contains("PTX has no bulk reduction `max` on f32"));
    s = load(kReduceOnly, "reduce_features.yaml");
    s.program[2].reduce = ReduceOp::inc;
    CHECK_THROWS_WITH(generate_kernel_source(s), Catch::Contains("PTX has no tensor reduction `inc` on f32"));
}
