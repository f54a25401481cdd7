// Every PTX wrapper is documented and instantiated in a kernel that NVRTC (with ptxas
// behind it) accepts for sm_90a and sm_100a: a typo in an instruction fails here, not on the
// GPU. The sm_100a-only wrappers (tile::gather4/scatter4) are compiled for real on sm_100a.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <regex>

#include "device/emit/float_bits.h"
#include "device/emit/kernel_abi.h"
#include "device/ptx_wrappers/ptx_wrappers.h"
#include "device_test_support.h"

using namespace tmasim::device;
using namespace tmasim::device::test;

namespace {

// Calls each wrapper once; the values only need to be well-formed for the compiler.
const char* kCallEveryWrapper = R"(
extern "C" __global__ void call_every_wrapper(const __grid_constant__ TensorMapParam tmap,
                                              unsigned char* g, unsigned long long* out) {
    __shared__ alignas(128) unsigned char buf[1024];
    __shared__ alignas(8) unsigned long long bar[1];
    const unsigned s = cvta_to_shared_u32(buf);
    const unsigned b = cvta_to_shared_u32(bar);
    unsigned long long acc = read_clock64() + read_globaltimer();
    acc += read_clock64_after((unsigned)acc);
    unsigned leader = 0;
    const bool is_leader = elect_sync(0xffffffffu, leader);
    if (threadIdx.x == 0) {
        mbarrier_init_shared_cta_b64(b, 1);
        fence_mbarrier_init_release_cluster();
    }
    barrier_sync_aligned_0();
    barrier_arrive(1u, 64u);
    barrier_sync(1u, 64u);
    if (is_leader && threadIdx.x < 32) {
        acc += mbarrier_arrive_expect_tx_shared_cta_b64(b, 1024);
        mbarrier_expect_tx_relaxed_cta_shared_cta_b64(b, 16);
        acc += mbarrier_arrive_shared_cta_b64(b);
        acc += mbarrier_arrive_shared_cta_b64(b, 2u);
        cp_async_bulk_tensor_1d_shared_cluster_global_tile_mbarrier(s, &tmap, 0, b);
        cp_async_bulk_tensor_2d_shared_cluster_global_tile_mbarrier(s, &tmap, 0, 1, b);
        cp_async_bulk_tensor_3d_shared_cluster_global_tile_mbarrier(s, &tmap, 0, 1, 2, b);
        cp_async_bulk_tensor_4d_shared_cluster_global_tile_mbarrier(s, &tmap, 0, 1, 2, 3, b);
        cp_async_bulk_tensor_5d_shared_cluster_global_tile_mbarrier(s, &tmap, 0, 1, 2, 3, 4, b);
        cp_async_bulk_shared_cluster_global_mbarrier(s, g, 256, b);
        while (!mbarrier_try_wait_parity_shared_cta_b64(b, 0)) {}
        fence_proxy_async_shared_cta();
        cp_async_bulk_tensor_1d_global_shared_cta_tile_bulk_group(&tmap, 0, s);
        cp_async_bulk_tensor_2d_global_shared_cta_tile_bulk_group(&tmap, 0, 1, s);
        cp_async_bulk_tensor_3d_global_shared_cta_tile_bulk_group(&tmap, 0, 1, 2, s);
        cp_async_bulk_tensor_4d_global_shared_cta_tile_bulk_group(&tmap, 0, 1, 2, 3, s);
        cp_async_bulk_tensor_5d_global_shared_cta_tile_bulk_group(&tmap, 0, 1, 2, 3, 4, s);
        cp_async_bulk_global_shared_cta_bulk_group(g, s, 256);
        cp_async_bulk_commit_group();
        cp_async_bulk_wait_group<1>();
        cp_async_bulk_wait_group_read<0>();
        cp_async_bulk_wait_group_dynamic((long long)threadIdx.x, true);
        mbarrier_inval_shared_cta_b64(b);
    }
    // Per-thread accesses by width, cp.async and its groups, L2 prefetches.
    unsigned sink = 0, d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    xor_b32_sink(sink, ld_volatile_shared_b8(s + threadIdx.x));
    xor_b32_sink(sink, ld_volatile_shared_b16(s + 2 * threadIdx.x));
    xor_b32_sink(sink, ld_volatile_shared_b32(s + 4 * threadIdx.x));
    ld_volatile_shared_v2_b32(s + 8 * threadIdx.x, d0, d1);
    ld_volatile_shared_v4_b32(s + 16 * (threadIdx.x % 64), d0, d1, d2, d3);
    st_volatile_shared_b8(s + threadIdx.x, d0);
    st_volatile_shared_b16(s + 2 * threadIdx.x, d1);
    st_volatile_shared_b32(s + 4 * threadIdx.x, d2);
    st_volatile_shared_v2_b32(s + 8 * threadIdx.x, d3, d0);
    st_volatile_shared_v4_b32(s + 16 * (threadIdx.x % 64), d0, d1, d2, d3);
    xor_b32_sink(sink, ld_volatile_global_b8(g + threadIdx.x));
    xor_b32_sink(sink, ld_volatile_global_b16(g + 2 * threadIdx.x));
    xor_b32_sink(sink, ld_volatile_global_b32(g + 4 * threadIdx.x));
    ld_volatile_global_v2_b32(g + 8 * threadIdx.x, d0, d1);
    ld_volatile_global_v4_b32(g + 16 * threadIdx.x, d0, d1, d2, d3);
    sink ^= d0 ^ d1 ^ d2 ^ d3;
    st_global<1>(g + threadIdx.x, d0);
    st_global<2>(g + 2 * threadIdx.x, d1);
    st_global<4>(g + 4 * threadIdx.x, d2);
    st_global<8>(g + 8 * threadIdx.x, d3);
    st_global<16>(g + 16 * threadIdx.x, sink);
    cp_async_ca_shared_global<4>(s + 4 * threadIdx.x, g + 4 * threadIdx.x);
    cp_async_ca_shared_global<8>(s + 8 * threadIdx.x, g, threadIdx.x % 9);
    cp_async_cg_shared_global<16>(s + 16 * (threadIdx.x % 64), g);
    cp_async_cg_shared_global<16>(s + 16 * (threadIdx.x % 64), g, threadIdx.x % 17);
    cp_async_commit_group();
    cp_async_wait_group<1>();
    cp_async_mbarrier_arrive_shared_cta_b64(b);
    cp_async_mbarrier_arrive_noinc_shared_cta_b64(b);
    cp_async_wait_all();
    if (is_leader) {
        cp_async_bulk_prefetch_tensor_1d_l2_global_tile(&tmap, 0);
        cp_async_bulk_prefetch_tensor_2d_l2_global_tile(&tmap, 0, 1);
        cp_async_bulk_prefetch_tensor_3d_l2_global_tile(&tmap, 0, 1, 2);
        cp_async_bulk_prefetch_tensor_4d_l2_global_tile(&tmap, 0, 1, 2, 3);
        cp_async_bulk_prefetch_tensor_5d_l2_global_tile(&tmap, 0, 1, 2, 3, 4);
        cp_async_bulk_prefetch_l2_global(g, 256);
    }
    acc += sink;
    st_volatile_shared_u32(s + 4 * threadIdx.x, (unsigned)acc);
    acc += ld_volatile_shared_u32(s + 4 * ((threadIdx.x + 1) % 32));
    acc += (unsigned)ld_volatile_global_s32((const int*)g);
    st_global_u32(reinterpret_cast<unsigned*>(out + blockDim.x + threadIdx.x), (unsigned)acc);
    st_shared_u32(s + 4 * threadIdx.x, (unsigned)acc);
    acc += ld_shared_v4_u32(s).x;
    acc += f32_to_f16_bits_rne((float)acc) + f32_to_bf16_bits_rne((float)acc);
    acc += (unsigned long long)(f16_bits_to_f32((unsigned short)acc) + bf16_bits_to_f32(1));
    out[threadIdx.x] = acc + leader;
}
)";

// Calls every reduction wrapper (generated per op and type), gather4 and scatter4. The
// #error proves NVRTC defines the macro that guards the sm_100a instructions, so on sm_100a
// the kernel really contains them instead of the __trap() fallback.
std::string call_reduce_and_gather_wrappers() {
    std::string calls;
    const std::vector<std::string> names = ptx_reduce_and_gather_wrapper_names();
    for (const std::string& name : names) {
        if (name.rfind("cp_reduce_async_bulk_global_", 0) == 0) {
            calls += fmt::format("        {}(g, s, 256);\n", name);
        } else if (name.rfind("cp_reduce_async_bulk_tensor_", 0) == 0) {
            const int rank = name[28] - '0';  // "cp_reduce_async_bulk_tensor_Nd_..."
            std::string coords;
            for (int i = 0; i < rank; ++i) coords += fmt::format(", {}", i);
            calls += fmt::format("        {}(&tmap{}, s);\n", name, coords);
        }
    }
    return R"(
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000 && !defined(__CUDA_ARCH_FEAT_SM100_ALL)
#error "sm_100a compile without __CUDA_ARCH_FEAT_SM100_ALL: gather4/scatter4 would trap"
#endif
extern "C" __global__ void call_reduce_and_gather_wrappers(
    const __grid_constant__ TensorMapParam tmap, unsigned char* g) {
    __shared__ alignas(128) unsigned char buf[1024];
    __shared__ alignas(8) unsigned long long bar[1];
    const unsigned s = cvta_to_shared_u32(buf);
    const unsigned b = cvta_to_shared_u32(bar);
    if (threadIdx.x == 0) {
        cp_async_bulk_tensor_2d_shared_cluster_global_tile_gather4_mbarrier(s, &tmap, 0, 1, 2, 3, 4, b);
        cp_async_bulk_tensor_2d_global_shared_cta_tile_scatter4_bulk_group(&tmap, 0, 1, 2, 3, 4, s);
)" + calls + R"(        cp_async_bulk_commit_group();
        cp_async_bulk_wait_group<0>();
    }
}
)";
}

}  // namespace

TEST_CASE("every PTX wrapper compiles for sm_90a and sm_100a under NVRTC", "[device][ptx][nvrtc]") {
    std::string src(ptx_wrappers_source());
    src += float_bits_device_source();
    src += kernel_abi_device_source();
    src += kCallEveryWrapper;
    src += call_reduce_and_gather_wrappers();
    for (const char* target : {"sm_90a", "sm_100a"}) {
        INFO("target " << target);
        require_compiles(src, target);
    }
}

TEST_CASE("reduction wrappers cover exactly the loader's (op, type) table", "[device][ptx]") {
    const std::vector<std::string> names = ptx_reduce_and_gather_wrapper_names();
    // f32 add; f16, bf16 add/min/max; i32 add/min/max/and/or/xor: 13 bulk forms, and six
    // redOps of the tensor form at five ranks.
    CHECK(names.size() == 13 + 6 * 5 + 2);
    const std::string src(ptx_wrappers_source());
    for (const char* instruction :
         {"cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;",
          "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [%0], [%1], %2;",
          "cp.reduce.async.bulk.global.shared::cta.bulk_group.max.f16 [%0], [%1], %2;",
          "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16 [%0], [%1], %2;",
          "cp.reduce.async.bulk.global.shared::cta.bulk_group.min.bf16 [%0], [%1], %2;",
          "cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s32 [%0], [%1], %2;",
          "cp.reduce.async.bulk.global.shared::cta.bulk_group.or.b32 [%0], [%1], %2;",
          "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [%0, {%1}], [%2];",
          "cp.reduce.async.bulk.tensor.5d.global.shared::cta.xor.tile.bulk_group"
          " [%0, {%1, %2, %3, %4, %5}], [%6];"}) {
        INFO(instruction);
        CHECK(src.find(instruction) != std::string::npos);
    }
    // No form PTX lacks: f16 add without .noftz, f32 min, inc/dec.
    CHECK(src.find("bulk_group.add.f16") == std::string::npos);
    CHECK(src.find("bulk_group.min.f32") == std::string::npos);
    CHECK(src.find(".inc.") == std::string::npos);
    CHECK(src.find(".dec.") == std::string::npos);
    CHECK(bulk_reduce_wrapper_name(tmasim::ReduceOp::add, tmasim::DType::bf16) ==
          "cp_reduce_async_bulk_global_shared_cta_bulk_group_add_noftz_bf16");
    CHECK(tensor_reduce_wrapper_name(3, tmasim::ReduceOp::and_) ==
          "cp_reduce_async_bulk_tensor_3d_global_shared_cta_and_tile_bulk_group");
}

TEST_CASE("every PTX wrapper is named after its instruction and documented", "[device][ptx]") {
    const std::string src(ptx_wrappers_source());
    std::vector<std::string> names(kPtxWrapperNames, kPtxWrapperNames + kPtxWrapperCount);
    for (const std::string& n : ptx_thread_op_wrapper_names()) names.push_back(n);
    for (const std::string& n : ptx_layout_wrapper_names()) names.push_back(n);
    for (const std::string& generated : ptx_reduce_and_gather_wrapper_names()) names.push_back(generated);
    // Cluster and tensor-map wrappers (test_codegen_cluster_wrappers.cpp compiles each one).
    for (const std::string& n : ptx_cluster_wrapper_names()) names.push_back(n);
    for (const std::string& n : ptx_tensormap_wrapper_names()) names.push_back(n);
    for (const std::string& n : ptx_guarded_wrapper_names()) names.push_back(n);
    for (const std::string& name : names) {
        INFO(name);
        CHECK(src.find(" " + name + "(") != std::string::npos);
        // The comment right above the wrapper gives the PTX form and the minimum SM.
        const std::regex documented("// PTX: [^\\n]+;  sm_\\d+[^\\n]*\\n(//[^\\n]*\\n)*(template <int N>\\n)?"
                                    "__device__ __forceinline__ [^\\n]* " + name + "\\(");
        CHECK(std::regex_search(src, documented));
    }
    // Async, barrier and fence instructions all carry a "memory" clobber.
    const std::regex asm_stmt(R"(asm volatile\(([^;]|;[^)])*?\);)");
    int checked = 0;
    for (auto it = std::sregex_iterator(src.begin(), src.end(), asm_stmt); it != std::sregex_iterator(); ++it) {
        const std::string stmt = it->str();
        if (stmt.find("mbarrier") != std::string::npos || stmt.find("cp.async") != std::string::npos ||
            stmt.find("cp.reduce") != std::string::npos ||
            stmt.find("fence") != std::string::npos || stmt.find("barrier.sync") != std::string::npos) {
            INFO(stmt);
            CHECK(stmt.find("\"memory\"") != std::string::npos);
            ++checked;
        }
    }
    CHECK(checked >= 40 + 43 + 2);
}
