// wgmma codegen without a GPU: the PTX text of each wrapper, the descriptors the kernels
// build for each swizzle mode (values derived here from PTX 9.7.15.5.1.2), the descriptor's
// bit layout (evaluated by NVRTC's constant folding), the accumulator fragment stores, and
// kernels that NVRTC compiles for sm_90a (and, with the wrappers trapping, for sm_100a).
#include <catch2/catch.hpp>

#include <nvrtc.h>

#include <fmt/format.h>

#include <regex>

#include "device/emit/codegen.h"
#include "device/emit/float_bits.h"
#include "device/emit/kernel_abi.h"
#include "device/ptx_wrappers/ptx_wrappers.h"
#include "device_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;
using namespace tmasim::device;
using namespace tmasim::device::test;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_codegen_wgmma {

namespace {

std::string kernel_of(const std::string& catalog_file) {
    return generate_kernel_source(load_scenario_file(source_dir() + "/scenarios/catalog/" + catalog_file));
}

bool has(const std::string& src, const std::string& text) { return src.find(text) != std::string::npos; }

// NVRTC to PTX (compute_90a): constant expressions come out folded into immediates.
std::string ptx_of(const std::string& source) {
    nvrtcProgram prog;
    REQUIRE(nvrtcCreateProgram(&prog, source.c_str(), "probe.cu", 0, nullptr, nullptr) == NVRTC_SUCCESS);
    const char* options[] = {"-arch=compute_90a", "-std=c++17", "-default-device"};
    const nvrtcResult rc = nvrtcCompileProgram(prog, 3, options);
    size_t size = 0;
    nvrtcGetProgramLogSize(prog, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(prog, &log[0]);
    INFO(log);
    REQUIRE(rc == NVRTC_SUCCESS);
    nvrtcGetPTXSize(prog, &size);
    std::string ptx(size, '\0');
    nvrtcGetPTX(prog, &ptx[0]);
    nvrtcDestroyProgram(&prog);
    return ptx;
}

}  // namespace

TEST_CASE("wgmma wrappers carry their PTX instruction, minimum SM and memory clobber", "[device][wgmma][ptx]") {
    const std::string src(ptx_wrappers_source());
    for (const std::string& name : ptx_wgmma_wrapper_names()) {
        INFO(name);
        const std::regex documented("// PTX: [^\\n]+;  sm_90a[^\\n]*\\n(//[^\\n]*\\n)*(template <int N>\\n)?"
                                    "__device__ __forceinline__ [^\\n]* " + name + "\\(");
        CHECK(std::regex_search(src, documented));
    }
    CHECK(has(src, "asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\");"));
    CHECK(has(src, "asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\");"));
    CHECK(has(src, "asm volatile(\"wgmma.wait_group.sync.aligned %0;\" :: \"n\"(N) : \"memory\");"));

    const std::string mma = wgmma_mma_wrapper_source(64, DType::bf16);
    CHECK(wgmma_mma_wrapper_name(64, DType::bf16) == "wgmma_mma_async_sync_aligned_m64n64k16_f32_bf16_bf16");
    CHECK(has(mma, "// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 d, a-desc, b-desc, scale-d, 1, 1, 0, "
                   "0;  sm_90a\n"));
    // 32 accumulator registers %0..%31, then the descriptors %32/%33 and scale-d %34 as a
    // predicate; imm-scale-a/b 1, imm-trans-a/b 0 (K-major).
    CHECK(has(mma, "setp.ne.b32 p, %34, 0;"));
    CHECK(has(mma, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%0, %1, "));
    CHECK(has(mma, ", %31}, %32, %33, p, 1, 1, 0, 0;"));
    CHECK(has(mma, "\"+f\"(d[31])"));
    CHECK_FALSE(has(mma, "d[32]"));
    CHECK(has(mma, ": \"l\"(desc_a), \"l\"(desc_b), \"r\"(scale_d) : \"memory\");"));
    CHECK(has(wgmma_mma_wrapper_source(8, DType::f16), "m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;"));
    CHECK_THROWS(wgmma_mma_wrapper_source(12, DType::f16));
    CHECK_THROWS(wgmma_mma_wrapper_source(264, DType::f16));
    CHECK_THROWS(wgmma_mma_wrapper_source(8, DType::f32));
}

TEST_CASE("every wgmma.mma_async form compiles for sm_90a, and traps on sm_100a", "[device][wgmma][nvrtc]") {
    std::string src(ptx_wrappers_source());
    std::string body;
    for (const DType type : {DType::f16, DType::bf16})
        for (int n = 8; n <= 256; n += 8) {
            src += wgmma_mma_wrapper_source(n, type);
            body += fmt::format("    {{ float d[{0}] = {{}}; {1}(d, desc, desc, (int)threadIdx.x & 1);\n"
                                "      wgmma_commit_group_sync_aligned(); wgmma_wait_group_sync_aligned<0>();\n"
                                "      for (int i = 0; i < {0}; ++i) sum += d[i]; }}\n",
                                n / 2, wgmma_mma_wrapper_name(n, type));
        }
    src += "extern \"C\" __global__ void call_every_mma(float* out) {\n"
           "    __shared__ alignas(1024) unsigned char tile[16384];\n"
           "    const unsigned long long desc = make_wgmma_descriptor(cvta_to_shared_u32(tile), 16u, 1024u, 1u);\n"
           "    float sum = 0.0f;\n"
           "    float pinned = 1.0f;\n"
           "    wgmma_pin_register(pinned);\n"
           "    wgmma_fence_sync_aligned();\n" +
           body + "    wgmma_wait_group_sync_aligned<1>();\n    out[threadIdx.x] = sum + pinned;\n}\n";
    for (const char* target : {"sm_90a", "sm_100a"}) {
        INFO("target " << target);
        require_compiles(src, target);
    }
}

TEST_CASE("wgmma descriptor bits follow PTX's matrix descriptor format", "[device][wgmma][nvrtc]") {
    // PTX 9.7.15.5.1.2.2: bits 0-13 (addr & 0x3FFFF) >> 4, 16-29 LBO >> 4, 32-45 SBO >> 4,
    // 49-51 base offset (0), 62-63 swizzle: 0 none, 1 128B, 2 64B, 3 32B.
    struct Case {
        unsigned addr, lbo, sbo, layout;
    };
    const Case cases[] = {{0x12340u, 16u, 1024u, 1u}, {0x00680u, 128u, 256u, 0u}, {0x3FFF0u, 16u, 512u, 2u},
                          {0x41000u, 16u, 256u, 3u}};
    std::string src(ptx_wrappers_source());
    src += "extern \"C\" __global__ void descriptors(unsigned long long* out) {\n";
    for (size_t i = 0; i < std::size(cases); ++i)
        src += fmt::format("    out[{}] = make_wgmma_descriptor({}u, {}u, {}u, {}u);\n", i, cases[i].addr, cases[i].lbo,
                           cases[i].sbo, cases[i].layout);
    src += "}\n";
    const std::string ptx = ptx_of(src);
    for (const Case& c : cases) {
        const uint64_t want = uint64_t{(c.addr & 0x3FFFFu) >> 4} | (uint64_t{c.lbo >> 4} << 16) |
                              (uint64_t{c.sbo >> 4} << 32) | (uint64_t{c.layout} << 62);
        INFO(fmt::format("addr {:#x} lbo {} sbo {} layout {}: {:#018x}", c.addr, c.lbo, c.sbo, c.layout, want));
        // PTX prints 64-bit immediates in decimal, signed when bit 63 is set.
        const bool found = has(ptx, std::to_string(want)) || has(ptx, std::to_string(static_cast<int64_t>(want)));
        CHECK(found);
    }
    // The 0x41000 address wraps to 0x1000 (18-bit shared window offset, as PTX's encode).
    CHECK(((0x41000u & 0x3FFFFu) >> 4) == 0x100u);
}

TEST_CASE("wgmma kernels build each slice's descriptors for their swizzle mode", "[device][wgmma][codegen]") {
    // Swizzled K-major (PTX 9.7.15.5.1.2.1): LBO unused (1 = 16 bytes), SBO = 8 rows of S
    // bytes, the slice at column k starts 2k bytes into the row. Layouts: 32B 3, 64B 2, 128B 1.
    const std::string k32 = kernel_of("wgmma/tma_wgmma_32b.yaml");
    // a at smem offset 0, b at 2048 (64 x 16 x 2 bytes, both 256-aligned).
    CHECK(has(k32, "desc_a = make_wgmma_descriptor(smem_base + 0u + 0u, 16u, 256u, 3u);"));
    CHECK(has(k32, "desc_b = make_wgmma_descriptor(smem_base + 2048u + 0u, 16u, 256u, 3u);"));
    CHECK(has(k32, "wgmma_mma_async_sync_aligned_m64n16k16_f32_f16_f16(wgacc0, desc_a, desc_b, 1);"));
    CHECK(has(k32, "float wgacc0[8] = {};"));
    // Only the form the kernel uses is written into it.
    CHECK(has(k32, "__device__ __forceinline__ void wgmma_mma_async_sync_aligned_m64n16k16_f32_f16_f16("));
    CHECK_FALSE(has(k32, "wgmma_mma_async_sync_aligned_m64n8k16"));

    const std::string k64 = kernel_of("wgmma/tma_wgmma_64b_two_k.yaml");
    // a [64, 32] at 0 (4096 bytes), b [8, 32] at 4096 (512-aligned); k 16 starts 32 bytes in.
    CHECK(has(k64, "desc_a = make_wgmma_descriptor(smem_base + 0u + 0u, 16u, 512u, 2u);"));
    CHECK(has(k64, "desc_a = make_wgmma_descriptor(smem_base + 0u + 32u, 16u, 512u, 2u);"));
    CHECK(has(k64, "desc_b = make_wgmma_descriptor(smem_base + 4096u + 32u, 16u, 512u, 2u);"));
    CHECK(has(k64, "(wgacc0, desc_a, desc_b, 0);"));

    const std::string k128 = kernel_of("wgmma/tma_wgmma_128b_four_k.yaml");
    // a [64, 64] at 0 (8192 bytes), b at 8192 (1024-aligned); k 48 starts 96 bytes in.
    CHECK(has(k128, "desc_a = make_wgmma_descriptor(smem_base + 0u + 96u, 16u, 1024u, 1u);"));
    CHECK(has(k128, "desc_b = make_wgmma_descriptor(smem_base + 8192u + 64u, 16u, 1024u, 1u);"));
    CHECK(has(k128, "wgmma_wait_group_sync_aligned<1>();"));

    // No swizzle: core matrices, LBO = 128 (next along K), SBO = K/8 * 128 = 256 (next 8 rows).
    const std::string none = kernel_of("teach/16b_ldgsts_fence_wgmma.yaml");
    CHECK(has(none, "desc_a = make_wgmma_descriptor(smem_base + 0u + 0u, 128u, 256u, 0u);"));
    CHECK(has(none, "desc_b = make_wgmma_descriptor(smem_base + 2048u + 0u, 128u, 256u, 0u);"));
}

TEST_CASE("wgmma kernels store the D fragment and pin registers before wait_group's end clock",
          "[device][wgmma][codegen]") {
    const std::string src = kernel_of("wgmma/tma_wgmma_32b.yaml");
    // PTX's m64nNk16 D fragment: row 16 w + l/4 + 8 ((i/2)%2), column 8 (i/4) + 2 (l%4) + i%2.
    CHECK(has(src, "const int row = 16 * wg_warp + (lane >> 2) + 8 * ((r_ >> 1) & 1);"));
    CHECK(has(src, "const int col = 8 * (r_ >> 2) + 2 * (lane & 3) + (r_ & 1);"));
    CHECK(has(src, "d_[row * 16 + col] = wgacc0[r_];"));
    CHECK(has(src, "const int wg_warp = warp & 3;"));
    CHECK(has(src, "for (int r_ = 0; r_ < 8; ++r_) wgacc0[r_] = (float)(0.000000000e+00f);"));
    // wait_group (op 11), then the pins, then the clock read that ends it.
    const size_t wait = src.find("wgmma_wait_group_sync_aligned<0>();");
    REQUIRE(wait != std::string::npos);
    const size_t clock = src.find("= (unsigned)trace_clock64();  // op 11 ends", wait);
    REQUIRE(clock != std::string::npos);
    CHECK(src.find("wgmma_pin_register(wgacc0[r_]);", wait) < clock);
}

TEST_CASE("a two-warpgroup m64n256k16 bf16 kernel compiles for sm_90a", "[device][wgmma][nvrtc]") {
    const char* yaml = R"(
scenario: wgmma_wide
summary: two warpgroups, each its own 64 x 256 accumulator, bf16 operands in the 128B layout
source: tests/device
arch: sm_90
launch: {grid: [1], block: 256}
global:
  A: {type: bf16, shape: [64, 64], init: {fill: 1}}
  B: {type: bf16, shape: [256, 64], init: {fill: 1}}
tensormaps:
  mapA: {tensor: A, box: [64, 64], swizzle: 128B}
  mapB: {tensor: B, box: [256, 64], swizzle: 128B}
shared:
  a: {type: bf16, shape: [64, 64], align: 1024}
  b: {type: bf16, shape: [256, 64], align: 1024}
  d: {type: f32, shape: [64, 256]}
barriers:
  full: {}
accumulators:
  acc: {n: 256}
program:
  - {op: mbarrier.init, barrier: full, count: 1, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: sync}
  - {op: mbarrier.arrive_expect_tx, barrier: full, bytes: 40960, by: elected}
  - {op: tma.load, map: mapA, coords: [0, 0], dst: a, barrier: full, by: elected}
  - {op: tma.load, map: mapB, coords: [0, 0], dst: b, barrier: full, by: elected}
  - {op: mbarrier.wait, barrier: full, parity: 0}
  - {op: wgmma.fence}
  - {op: wgmma.mma_async, acc: acc, a: a, b: b, k: 32, scale_d: 0, swizzle: 128B}
  - {op: wgmma.commit_group}
  - {op: wgmma.wait_group, n: 0}
  - {op: wgmma.acc_store, acc: acc, buffer: d, by: "warp >= 4"}
expect:
  outcome: ok
)";
    const Scenario s = load_scenario_text(yaml, "wgmma_wide.yaml");
    const std::string src = generate_kernel_source(s);
    CHECK(has(src, "float wgacc0[128] = {};"));
    CHECK(has(src, "wgmma_mma_async_sync_aligned_m64n256k16_f32_bf16_bf16(wgacc0, desc_a, desc_b, 0);"));
    CHECK(has(src, "desc_b = make_wgmma_descriptor(smem_base + 8192u + 64u, 16u, 1024u, 1u);"));
    CHECK(has(src, "d_[row * 256 + col] = wgacc0[r_];"));
    require_compiles(src, "sm_90a");
}

}  // namespace test_codegen_wgmma
