// Codegen of the per-thread ops (shared.load/store, global.load/store at every width), the
// cp.async family and the two L2 prefetches: the kernel compiles for sm_90a and calls the
// wrapper of each instruction, with per-thread indices and the wait records of waits.
#include <catch2/catch.hpp>

#include "catalog_support.h"

#include <fmt/format.h>

#include "device/emit/codegen.h"
#include "device_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;
using tmasim::test::op_id;
using namespace tmasim::device;
using namespace tmasim::device::test;

namespace {
const char* kThreadOps = R"yaml(
scenario: thread_op_features
summary: every per-thread op, the cp.async family and both L2 prefetches
arch: sm_90
launch: {grid: [1], block: 128}
global:
  G: {type: f32, shape: [64, 64], init: iota}
  H: {type: u8, shape: [4096], init: iota}
  I: {type: f16, shape: [2048], init: iota}
tensormaps:
  mapG: {tensor: G, box: [16, 32]}
shared:
  tile: {type: f32, shape: [1024]}
  bytes: {type: u8, shape: [512]}
  halves: {type: bf16, shape: [1024], array: 2}
barriers:
  copied: {}
program:
  - {op: mbarrier.init, barrier: copied, count: 128, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: sync}
  - {op: tma.prefetch, map: mapG, coords: [16, 32], by: elected}
  - {op: bulk.prefetch, global: H, offset: 256, bytes: 1024, by: elected}
  - {op: global.load, global: G, index: "tid"}
  - {op: global.load, global: H, index: "tid*8", width: 8, by: warp1}
  - {op: global.load, global: I, index: "lane*8", width: 16, by: warp2}
  - {op: global.load, global: H, index: "tid", width: 1}
  - {op: global.load, global: I, index: "tid", width: 2, by: thread5}
  - {op: global.store, global: G, index: "tid", value: "tid * 0.5"}
  - {op: global.store, global: H, index: "tid*16", width: 16, value: "lane", by: "tid < 64"}
  - {op: global.store, global: I, index: "tid*2", width: 4, value: "warp"}
  - op: loop
    var: i
    count: 2
    body:
      - {op: cp.async, global: G, src_index: "i*512 + tid*4", dst: tile, dst_index: "tid*4", size: 16, cache: cg}
      - {op: cp.async, global: H, src_index: "tid*4 + i*512", dst: bytes, dst_index: "tid*4", size: 4, src_size: "lane % 5"}
      - {op: cp.async.commit_group}
      - {op: cp.async.wait_group, n: 1, label: wait_one}
  - {op: cp.async, global: G, src_index: "tid*2", dst: tile, dst_index: "tid*2", size: 8}
  - {op: cp.async.mbarrier.arrive, barrier: copied, noinc: true}
  - {op: cp.async.wait_all, label: wait_all}
  - {op: mbarrier.wait, barrier: copied, parity: 0}
  - {op: shared.load, buffer: tile, index: "lane*32"}
  - {op: shared.load, buffer: tile, index: "tid*4", width: 16}
  - {op: shared.load, buffer: tile, index: "tid*2", width: 8, by: not_elected}
  - {op: shared.load, buffer: bytes, index: "tid", width: 1}
  - {op: shared.load, buffer: "halves[1]", index: "tid", width: 2}
  - {op: sync}
  - {op: shared.store, buffer: tile, index: "warp*32 + lane", value: "tid * 0.5 + 1"}
  - {op: shared.store, buffer: bytes, index: "tid*4", width: 4, value: "tid + 250"}
  - {op: shared.store, buffer: "halves[0]", index: "tid*8", width: 16, value: "lane * 0.25"}
  - {op: shared.store, buffer: "halves[1]", index: "tid*4", width: 8, value: "warp"}
  - {op: sync}
expect:
  outcome: ok
)yaml";

Scenario load_thread_ops() {
    try {
        return load_scenario_text(kThreadOps, "thread_op_features.yaml");
    } catch (const std::exception& e) {
        FAIL("the test scenario does not load: " << e.what());
    }
    return {};
}


}  // namespace

TEST_CASE("per-thread ops, cp.async and L2 prefetches compile for sm_90a", "[device][codegen][nvrtc]") {
    const Scenario s = load_thread_ops();
    const std::string src = generate_kernel_source(s);
    INFO(src.substr(src.find("extern \"C\"")));
    require_compiles(src, "sm_90a");

    for (const char* call : {
             // global.load by width, folded into the sink
             "xor_b32_sink(load_sink, ld_volatile_global_b32(src));",
             "ld_volatile_global_v2_b32(src, d0, d1);",
             "ld_volatile_global_v4_b32(src, d0, d1, d2, d3);",
             "xor_b32_sink(load_sink, ld_volatile_global_b8(src));",
             "xor_b32_sink(load_sink, ld_volatile_global_b16(src));",
             // global.store: the value converted like shared.store's, one st.global of the width
             "unsigned char* const dst = global0 + ",
             "const unsigned bits = __float_as_uint((float)(",
             "st_global<4>(dst, bits);",
             "st_global<16>(dst, bits * 0x01010101u);",
             "const unsigned bits = (unsigned)f32_to_f16_bits_rne((float)(",
             "st_global<4>(dst, bits | (bits << 16));",
             // shared.load by width
             "xor_b32_sink(load_sink, ld_volatile_shared_b32(addr));",
             "ld_volatile_shared_v4_b32(addr, d0, d1, d2, d3);",
             "ld_volatile_shared_v2_b32(addr, d0, d1);",
             "xor_b32_sink(load_sink, ld_volatile_shared_b8(addr));",
             "xor_b32_sink(load_sink, ld_volatile_shared_b16(addr));",
             // shared.store: the value converted like compute, repeated over the access
             "__float_as_uint((float)(",
             "f32_to_bf16_bits_rne((float)(",
             "const unsigned word = bits * 0x01010101u;",
             "const unsigned word = bits | (bits << 16);",
             "st_volatile_shared_b32(addr, word);",
             "st_volatile_shared_v4_b32(addr, word, word, word, word);",
             "st_volatile_shared_v2_b32(addr, word, word);",
             // cp.async family
             "cp_async_cg_shared_global<16>(dst, src);",
             "cp_async_ca_shared_global<4>(dst, src, (unsigned)",
             "cp_async_ca_shared_global<8>(dst, src);",
             "cp_async_commit_group();",
             "cp_async_wait_group<1>();",
             "cp_async_wait_all();",
             "cp_async_mbarrier_arrive_noinc_shared_cta_b64(smem_base + ",
             // prefetches: YAML coords [16, 32] reach PTX fastest-first as {32, 16}
             "cp_async_bulk_prefetch_tensor_2d_l2_global_tile(&tmap0, (int)((long long)((32LL))), "
             "(int)((long long)((16LL))));",
             "cp_async_bulk_prefetch_l2_global(global1 + ",
             // the sink's store that the compiler cannot rule out
             "status->trace_unused = load_sink;",
         }) {
        INFO(call);
        CHECK(src.find(call) != std::string::npos);
    }
    // Indices are per thread: each executing thread computes its own.
    CHECK(src.find("(long long)tid") != std::string::npos);
    CHECK(src.find("(long long)lane") != std::string::npos);
    CHECK(src.find("(float)tid") != std::string::npos);
    // The cp.async waits are timed like every op (the decoder calls them waits).
    for (const char* label : {"wait_one", "wait_all"}) {
        INFO(label);
        CHECK(src.find(fmt::format("= (unsigned)trace_clock64();  // op {} ends", op_id(s, label))) != std::string::npos);
    }
}

TEST_CASE("per-thread ops compile for sm_100a too", "[device][codegen][nvrtc]") {
    require_compiles(generate_kernel_source(load_thread_ops()), "sm_100a");
}
