// The cluster and tensor-map PTX wrappers: the name lists match what the sources define,
// and a kernel that calls every one of them goes through NVRTC and ptxas for sm_90a and
// sm_100a, so a typo in an instruction, a qualifier order ptxas rejects or an operand of
// the wrong width fails here and not on the GPU.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <regex>
#include <set>

#include "device/emit/float_bits.h"
#include "device/emit/kernel_abi.h"
#include "device/ptx_wrappers/ptx_wrappers.h"
#include "device_test_support.h"

using namespace tmasim;
using namespace tmasim::device;
using namespace tmasim::device::test;

namespace {

std::set<std::string> defined_functions(std::string_view source) {
    std::set<std::string> names;
    const std::string text(source);
    const std::regex def(R"(__device__ __forceinline__ [^(\n]* ([a-z0-9_]+)\()");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), def); it != std::sregex_iterator(); ++it)
        names.insert((*it)[1].str());
    return names;
}

// One call of every cluster and tensor-map wrapper; the values need only be well-formed.
std::string call_every_cluster_wrapper() {
    std::string calls;
    for (int rank = 1; rank <= 5; ++rank) {
        std::string coords;
        for (int i = 0; i < rank; ++i) coords += fmt::format(", {}", i);
        calls += fmt::format("        {}(s, &tmap{}, b, (unsigned short)3);\n", multicast_tensor_wrapper_name(rank), coords);
    }
    for (MapField f : {MapField::global_address, MapField::global_dim, MapField::global_stride,
                       MapField::box_dim, MapField::element_stride})
        for (Space sp : {Space::shared, Space::global}) {
            const std::string addr = sp == Space::shared ? "m" : "gmap";
            const std::string name = tensormap_replace_wrapper_name(f, sp);
            if (f == MapField::global_address)
                calls += fmt::format("        {}({}, (unsigned long long)g);\n", name, addr);
            else if (f == MapField::global_stride)
                calls += fmt::format("        {}<1>({}, 256ull);\n", name, addr);
            else
                calls += fmt::format("        {}<0>({}, 16u);\n", name, addr);
        }
    for (Scope sc : {Scope::cta, Scope::cluster, Scope::gpu, Scope::sys}) {
        calls += fmt::format("        {}();\n", fence_proxy_tensormap_wrapper_name(true, sc));
        if (sc != Scope::cta) calls += fmt::format("        {}(gmap);\n", fence_proxy_tensormap_wrapper_name(false, sc));
    }
    std::string warp_calls;
    for (Scope sc : {Scope::cta, Scope::cluster, Scope::gpu, Scope::sys})
        warp_calls += fmt::format("        {}(gmap, m);\n", tensormap_cp_fenceproxy_wrapper_name(sc));
    return R"(
extern "C" __global__ void __cluster_dims__(2, 1, 1) call_every_cluster_wrapper(
    const __grid_constant__ TensorMapParam tmap, unsigned char* g, TensorMapParam* gmap, unsigned* out) {
    __shared__ alignas(128) unsigned char buf[1024];
    __shared__ alignas(128) unsigned char map[128];
    __shared__ alignas(8) unsigned long long bar[1];
    const unsigned s = cvta_to_shared_u32(buf);
    const unsigned m = cvta_to_shared_u32(map);
    const unsigned b = cvta_to_shared_u32(bar);
    const unsigned rank = read_cluster_ctarank();
    const unsigned peer = mapa_shared_cluster_u32(s, rank ^ 1u);
    const unsigned peer_bar = mapa_shared_cluster_u32(b, rank ^ 1u);
    barrier_cluster_arrive_relaxed_aligned();
    barrier_cluster_wait_aligned();
    unsigned sink = 0, d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    xor_b32_sink(sink, ld_volatile_shared_cluster_b8(peer + threadIdx.x));
    xor_b32_sink(sink, ld_volatile_shared_cluster_b16(peer + 2 * threadIdx.x));
    xor_b32_sink(sink, ld_volatile_shared_cluster_b32(peer + 4 * threadIdx.x));
    ld_volatile_shared_cluster_v2_b32(peer + 8 * threadIdx.x, d0, d1);
    ld_volatile_shared_cluster_v4_b32(peer + 16 * (threadIdx.x % 64), d0, d1, d2, d3);
    st_volatile_shared_cluster_b8(peer + threadIdx.x, d0);
    st_volatile_shared_cluster_b16(peer + 2 * threadIdx.x, d1);
    st_volatile_shared_cluster_b32(peer + 4 * threadIdx.x, d2);
    st_volatile_shared_cluster_v2_b32(peer + 8 * threadIdx.x, d3, d0);
    st_volatile_shared_cluster_v4_b32(peer + 16 * (threadIdx.x % 64), d0, d1, d2, d3);
    st_async_shared_cluster_mbarrier_complete_tx_bytes_b32(peer, d0, peer_bar);
    st_async_shared_cluster_mbarrier_complete_tx_bytes_v2_b32(peer + 8, d0, d1, peer_bar);
    st_async_shared_cluster_mbarrier_complete_tx_bytes_v4_b32(peer + 16, d0, d1, d2, d3, peer_bar);
    fence_proxy_async_shared_cluster();
    fence_proxy_async_global();
    fence_proxy_async();
    if (threadIdx.x == 0) {
        mbarrier_arrive_release_cluster_shared_cluster_b64(peer_bar, 1u);
        mbarrier_expect_tx_relaxed_cluster_shared_cluster_b64(peer_bar, 16u);
        mbarrier_arrive_expect_tx_release_cluster_shared_cluster_b64(peer_bar, 16u);
        cp_async_bulk_shared_cluster_global_mbarrier_multicast_cluster(s, g, 256u, b, (unsigned short)3);
)" + calls + R"(    }
    if (threadIdx.x < 32) {
)" + warp_calls + R"(    }
    barrier_cluster_arrive_aligned();
    barrier_cluster_wait_aligned();
    out[threadIdx.x] = sink;
}
)";
}

}  // namespace

TEST_CASE("the cluster and tensor-map wrapper lists name exactly what their sources define", "[device][ptx][cluster]") {
    const std::vector<std::string> cluster = ptx_cluster_wrapper_names();
    CHECK(std::set<std::string>(cluster.begin(), cluster.end()) == defined_functions(ptx_cluster_wrappers_source()));
    CHECK(cluster.size() == 25 + 5);
    const std::vector<std::string> tensormap = ptx_tensormap_wrapper_names();
    CHECK(std::set<std::string>(tensormap.begin(), tensormap.end()) ==
          defined_functions(ptx_tensormap_wrappers_source()));
    CHECK(multicast_tensor_wrapper_name(3) ==
          "cp_async_bulk_tensor_3d_shared_cluster_global_tile_mbarrier_multicast_cluster");
}

TEST_CASE("cluster wrappers carry the exact PTX operand order", "[device][ptx][cluster]") {
    const std::string src(ptx_wrappers_source());
    for (const char* instruction : {
             "\"mapa.shared::cluster.u32 %0, %1, %2;\" : \"=r\"(d) : \"r\"(addr), \"r\"(rank)",
             "\"mov.u32 %0, %%cluster_ctarank;\"",
             "\"ld.volatile.shared::cluster.v4.b32 {%0, %1, %2, %3}, [%4];\"",
             "\"st.volatile.shared::cluster.b16 [%0], %1;\"",
             "\"mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0], %1;\"",
             "\"mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [%0], %1;\"",
             "\"mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%0], %1;\"",
             "\"barrier.cluster.arrive.aligned;\"",
             "\"barrier.cluster.arrive.relaxed.aligned;\"",
             "\"barrier.cluster.wait.aligned;\"",
             "\"st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];\"",
             "\"st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];\"",
             "\"st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32\"\n                 \" [%0], {%1, %2, %3, %4}, [%5];\"",
             "\"fence.proxy.async.shared::cluster;\"",
             "\"fence.proxy.async.global;\"",
             "\"fence.proxy.async;\"",
             "\"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster\"\n"
             "                 \" [%0], [%1], %2, [%3], %4;\"\n"
             "                 :: \"r\"(dst), \"l\"(src), \"r\"(bytes), \"r\"(mbar), \"h\"(cta_mask)",
             "\"cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster\"\n"
             "                 \" [%0], [%1, {%2, %3}], [%4], %5;\"\n"
             "                 :: \"r\"(dst), \"l\"(tmap), \"r\"(c0), \"r\"(c1), \"r\"(mbar), \"h\"(cta_mask)",
             "\" [%0], [%1, {%2, %3, %4, %5, %6}], [%7], %8;\"",
         }) {
        INFO(instruction);
        CHECK(src.find(instruction) != std::string::npos);
    }
}

TEST_CASE("every cluster and tensor-map wrapper compiles for sm_90a and sm_100a", "[device][ptx][cluster][nvrtc]") {
    const std::string kernel = call_every_cluster_wrapper();
    std::vector<std::string> names = ptx_cluster_wrapper_names();
    for (const std::string& n : ptx_tensormap_wrapper_names()) names.push_back(n);
    for (const std::string& name : names) {
        INFO(name);
        CHECK(std::regex_search(kernel, std::regex("\\b" + name + "(<[0-9]+>)?\\(")));
    }
    std::string src(ptx_wrappers_source());
    src += float_bits_device_source();
    src += kernel_abi_device_source();
    src += kernel;
    for (const char* target : {"sm_90a", "sm_100a"}) {
        INFO("target " << target);
        require_compiles(src, target);
    }
}
