// Codegen of tensor maps in global memory: the extra kernel parameter, the staged copy in
// shared memory, tensormap.replace with PTX's innermost-first ord, cp_fenceproxy, the
// tensormap-proxy fences, and TMA ops reading the global object instead of the parameter.
#include <catch2/catch.hpp>

#include "device/emit/codegen.h"
#include "device/ptx_wrappers/ptx_wrappers.h"
#include "device_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;
using namespace tmasim::device;
using namespace tmasim::device::test;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_codegen_tensormap {

namespace {

const char* kGlobalMap = R"yaml(
scenario: tensormap_codegen
summary: a map in global memory, modified on the device, then used by TMA
arch: sm_90
launch: {grid: [1], block: 64}
global:
  A: {type: f32, shape: [4, 64, 64], init: iota}
  A2: {type: f32, shape: [4, 64, 64], init: {fill: 3}}
tensormaps:
  mapP: {tensor: A, box: [1, 16, 64]}
  mapG: {tensor: A, box: [1, 16, 64], location: global}
shared:
  tile: {type: f32, shape: [1, 16, 64]}
barriers:
  full: {}
program:
  - {op: mbarrier.init, barrier: full, count: 1, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: tensormap.stage, map: mapG, by: thread0}
  - {op: tensormap.replace, map: mapG, field: global_address, global: A2, space: shared, by: thread0}
  - {op: tensormap.replace, map: mapG, field: box_dim, dim: 0, value: 1, space: shared, by: thread0}
  - {op: tensormap.replace, map: mapG, field: global_dim, dim: 2, value: 32, space: shared, by: thread0}
  - {op: tensormap.replace, map: mapG, field: global_stride, dim: 0, value: 8192, space: shared, by: thread0}
  - {op: tensormap.replace, map: mapG, field: global_stride, dim: 1, value: 512, space: global, by: thread0}
  - {op: tensormap.replace, map: mapG, field: element_stride, dim: 1, value: 2, space: global, by: thread0}
  - {op: sync}
  - {op: tensormap.cp_fenceproxy, map: mapG, scope: gpu, by: warp0}
  - {op: fence.proxy.tensormap.release, scope: cluster, by: thread0}
  - {op: sync}
  - {op: fence.proxy.tensormap.acquire, map: mapG, scope: sys, by: thread0}
  - {op: mbarrier.arrive_expect_tx, barrier: full, bytes: 4096, by: thread0}
  - {op: tma.load, map: mapG, coords: [0, 0, 0], dst: tile, barrier: full, by: thread0}
  - {op: mbarrier.wait, barrier: full, parity: 0}
  - {op: fence.proxy.async}
  - {op: sync}
  - {op: tma.store, map: mapP, coords: [1, 16, 0], src: tile, by: thread0}
  - {op: tma.reduce, map: mapG, coords: [1, 16, 0], src: tile, reduce: add, by: thread0}
  - {op: tma.prefetch, map: mapG, coords: [2, 0, 0], by: thread0}
  - {op: bulk.commit_group, by: thread0}
  - {op: bulk.wait_group, n: 0, by: thread0}
expect:
  outcome: ok
)yaml";

std::string op_block(const std::string& src, int id) {
    const size_t b = src.find("// op " + std::to_string(id) + ":");
    if (b == std::string::npos) return "";
    const size_t e = src.find("// op " + std::to_string(id + 1) + ":", b);
    return src.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST_CASE("a map in global memory is staged, replaced, published and used", "[device][codegen][tensormap][nvrtc]") {
    Scenario s;
    try {
        s = load_scenario_text(kGlobalMap, "tensormap_codegen.yaml");
    } catch (const std::exception& e) {
        FAIL("the test scenario does not load: " << e.what());
    }
    const std::string src = generate_kernel_source(s);
    const std::string body = src.substr(src.find("extern \"C\""));
    INFO(body);
    require_compiles(src, "sm_90a");
    require_compiles(src, "sm_100a");

    // Both maps keep their __grid_constant__ parameter; the global one adds its object.
    CHECK(has(body, "    const __grid_constant__ TensorMapParam tmap0,\n"
                    "    const __grid_constant__ TensorMapParam tmap1,\n"
                    "    TensorMapParam* const gmap1,\n"
                    "    unsigned char* const global0,\n"));
    CHECK(!has(body, "gmap0"));

    // tile (4096 B) at 0, the barrier at 4096, the staged map at the next 128-byte boundary.
    CHECK(has(op_block(body, 2), "unsigned long long* const map_copy = (unsigned long long*)(smem + 4224u);"));
    CHECK(has(op_block(body, 2), "for (int w = 0; w < 16; ++w) map_copy[w] = tmap1.v[w];"));
    CHECK(has(op_block(body, 3),
              "tensormap_replace_tile_global_address_shared_cta_b1024_b64(smem_base + 4224u, "
              "(unsigned long long)global1);"));
    // dim 0 of a rank-3 map is PTX ord 2; a stride's ord is one less (dim 0 -> 1, dim 1 -> 0).
    CHECK(has(op_block(body, 4), "tensormap_replace_tile_box_dim_shared_cta_b1024_b32<2>(smem_base + 4224u, "
                                 "(unsigned)((long long)((1LL))));"));
    CHECK(has(op_block(body, 5), "tensormap_replace_tile_global_dim_shared_cta_b1024_b32<0>(smem_base + 4224u, "
                                 "(unsigned)((long long)((32LL))));"));
    CHECK(has(op_block(body, 6), "tensormap_replace_tile_global_stride_shared_cta_b1024_b64<1>(smem_base + 4224u, "
                                 "(unsigned long long)((long long)((8192LL))));"));
    CHECK(has(op_block(body, 7), "tensormap_replace_tile_global_stride_global_b1024_b64<0>(gmap1, "
                                 "(unsigned long long)((long long)((512LL))));"));
    CHECK(has(op_block(body, 8), "tensormap_replace_tile_element_stride_global_b1024_b32<1>(gmap1, "
                                 "(unsigned)((long long)((2LL))));"));
    CHECK(has(op_block(body, 10), "tensormap_cp_fenceproxy_global_shared_cta_tensormap_generic_release_gpu_sync_aligned("
                                  "gmap1, smem_base + 4224u);"));
    CHECK(has(op_block(body, 11), "fence_proxy_tensormap_generic_release_cluster();"));
    CHECK(has(op_block(body, 13), "fence_proxy_tensormap_generic_acquire_sys(gmap1);"));

    // TMA ops on the global map read the object; the parameter map stays a parameter.
    CHECK(has(op_block(body, 15), "cp_async_bulk_tensor_3d_shared_cluster_global_tile_mbarrier(smem_base + 0u, "
                                  "(const void*)gmap1, "));
    CHECK(has(op_block(body, 19), "cp_async_bulk_tensor_3d_global_shared_cta_tile_bulk_group(&tmap0, "));
    CHECK(has(op_block(body, 20), "cp_reduce_async_bulk_tensor_3d_global_shared_cta_add_tile_bulk_group("
                                  "(const void*)gmap1, "));
    CHECK(has(op_block(body, 21), "cp_async_bulk_prefetch_tensor_3d_l2_global_tile((const void*)gmap1, "));
}

TEST_CASE("tensor-map wrappers carry the exact PTX of each field, space and scope", "[device][ptx][tensormap]") {
    const std::string src(ptx_wrappers_source());
    for (const char* instruction : {
             "\"tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;\" :: \"r\"(addr), \"l\"(new_val)",
             "\"tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;\" :: \"l\"(addr), \"l\"(new_val)",
             "\"tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], %1, %2;\" :: \"r\"(addr), \"n\"(N), \"r\"(new_val)",
             "\"tensormap.replace.tile.global_dim.global.b1024.b32 [%0], %1, %2;\" :: \"l\"(addr), \"n\"(N), \"r\"(new_val)",
             "\"tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], %1, %2;\" :: \"r\"(addr), \"n\"(N), \"l\"(new_val)",
             "\"tensormap.replace.tile.element_stride.global.b1024.b32 [%0], %1, %2;\"",
             "\"tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cta.sync.aligned [%0], [%1], 128;\"",
             "\"tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.sys.sync.aligned [%0], [%1], 128;\"",
             "\"fence.proxy.tensormap::generic.release.gpu;\"",
             "\"fence.proxy.tensormap::generic.acquire.cluster [%0], 128;\"",
             "\"fence.proxy.tensormap::generic.acquire.sys [%0], 128;\"",
         }) {
        INFO(instruction);
        CHECK(has(src, instruction));
    }
    CHECK(!has(src, "acquire.cta"));
    CHECK(ptx_tensormap_wrapper_names().size() == 5 * 2 + 4 + 4 + 3);
    CHECK(tensormap_replace_wrapper_name(MapField::global_stride, Space::global) ==
          "tensormap_replace_tile_global_stride_global_b1024_b64");
}

TEST_CASE("tensor-map ops the device cannot express are refused with the op named", "[device][codegen][tensormap]") {
    const Scenario loaded = load_scenario_text(kGlobalMap, "tensormap_codegen.yaml");
    SECTION("an acquire at cta scope") {
        Scenario s = loaded;
        s.program[13].scope = Scope::cta;
        CHECK_THROWS_WITH(generate_kernel_source(s),
                          Catch::Contains("#13 fence.proxy.tensormap.acquire") &&
                              Catch::Contains("needs scope cluster, gpu or sys"));
    }
    SECTION("a map passed as a parameter") {
        Scenario s = loaded;
        s.program[2].map = "mapP";
        CHECK_THROWS_WITH(generate_kernel_source(s), Catch::Contains("needs a map declared with location: global"));
    }
    SECTION("a dimension the map does not have") {
        Scenario s = loaded;
        s.program[6].dim = Expr::constant(2);  // a rank-3 map has strides for dims 0 and 1 only
        CHECK_THROWS_WITH(generate_kernel_source(s), Catch::Contains("dim 2 is not one of the map's 2 strided dimensions"));
    }
    SECTION("cp_fenceproxy by fewer than a warp") {
        Scenario s = loaded;
        s.program[10].by.kind = Selector::Kind::thread;
        CHECK_THROWS_WITH(generate_kernel_source(s), Catch::Contains("one whole warp runs it"));
    }
}

}  // namespace test_codegen_tensormap
