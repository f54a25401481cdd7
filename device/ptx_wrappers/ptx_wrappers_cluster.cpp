// PTX wrappers for thread-block clusters: the CTA's rank, distributed shared memory
// (mapa, then ld/st.shared::cluster), mbarrier ops on a peer's barrier, the cluster barrier,
// st.async, multicast TMA loads and the state-space forms of fence.proxy.async. Same
// conventions as ptx_wrappers.cpp, which appends this text to its own.
//
// A shared::cluster address is 32 bits, like a shared::cta one: the shared::cta window lies
// inside the shared::cluster window, so a CTA's own shared::cta address is also a valid
// shared::cluster address of its own memory (multicast and st.async take such addresses).
#include <fmt/format.h>

#include "device/ptx_wrappers/ptx_wrappers.h"

namespace tmasim::device {

namespace {

constexpr std::string_view kClusterSource = R"ptx(
// ---- cluster rank and distributed shared memory -------------------------------------

// PTX: mov.u32 d, %cluster_ctarank;  sm_90 (0 in a launch without clusters)
__device__ __forceinline__ unsigned read_cluster_ctarank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

// PTX: mapa.shared::cluster.u32 d, a, rank;  sm_90
// The shared::cluster address in CTA `rank` of the cluster that corresponds to this CTA's
// shared address `addr` (every CTA runs the same kernel, so the layout is the same).
__device__ __forceinline__ unsigned mapa_shared_cluster_u32(unsigned addr, unsigned rank) {
    unsigned d;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(d) : "r"(addr), "r"(rank));
    return d;
}

// PTX: ld.volatile.shared::cluster.b8 d, [addr];  sm_90
__device__ __forceinline__ unsigned ld_volatile_shared_cluster_b8(unsigned addr) {
    unsigned v;
    asm volatile("ld.volatile.shared::cluster.b8 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

// PTX: ld.volatile.shared::cluster.b16 d, [addr];  sm_90
__device__ __forceinline__ unsigned ld_volatile_shared_cluster_b16(unsigned addr) {
    unsigned v;
    asm volatile("ld.volatile.shared::cluster.b16 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

// PTX: ld.volatile.shared::cluster.b32 d, [addr];  sm_90
__device__ __forceinline__ unsigned ld_volatile_shared_cluster_b32(unsigned addr) {
    unsigned v;
    asm volatile("ld.volatile.shared::cluster.b32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

// PTX: ld.volatile.shared::cluster.v2.b32 {d0, d1}, [addr];  sm_90 (8-byte aligned)
__device__ __forceinline__ void ld_volatile_shared_cluster_v2_b32(unsigned addr, unsigned& d0,
                                                                  unsigned& d1) {
    asm volatile("ld.volatile.shared::cluster.v2.b32 {%0, %1}, [%2];"
                 : "=r"(d0), "=r"(d1) : "r"(addr) : "memory");
}

// PTX: ld.volatile.shared::cluster.v4.b32 {d0, d1, d2, d3}, [addr];  sm_90 (16-byte aligned)
__device__ __forceinline__ void ld_volatile_shared_cluster_v4_b32(unsigned addr, unsigned& d0,
                                                                  unsigned& d1, unsigned& d2,
                                                                  unsigned& d3) {
    asm volatile("ld.volatile.shared::cluster.v4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : "r"(addr) : "memory");
}

// PTX: st.volatile.shared::cluster.b8 [addr], v;  sm_90 (the low 8 bits of v)
__device__ __forceinline__ void st_volatile_shared_cluster_b8(unsigned addr, unsigned v) {
    asm volatile("st.volatile.shared::cluster.b8 [%0], %1;" :: "r"(addr), "r"(v) : "memory");
}

// PTX: st.volatile.shared::cluster.b16 [addr], v;  sm_90 (the low 16 bits of v)
__device__ __forceinline__ void st_volatile_shared_cluster_b16(unsigned addr, unsigned v) {
    asm volatile("st.volatile.shared::cluster.b16 [%0], %1;" :: "r"(addr), "r"(v) : "memory");
}

// PTX: st.volatile.shared::cluster.b32 [addr], v;  sm_90
__device__ __forceinline__ void st_volatile_shared_cluster_b32(unsigned addr, unsigned v) {
    asm volatile("st.volatile.shared::cluster.b32 [%0], %1;" :: "r"(addr), "r"(v) : "memory");
}

// PTX: st.volatile.shared::cluster.v2.b32 [addr], {v0, v1};  sm_90 (8-byte aligned)
__device__ __forceinline__ void st_volatile_shared_cluster_v2_b32(unsigned addr, unsigned v0,
                                                                  unsigned v1) {
    asm volatile("st.volatile.shared::cluster.v2.b32 [%0], {%1, %2};"
                 :: "r"(addr), "r"(v0), "r"(v1) : "memory");
}

// PTX: st.volatile.shared::cluster.v4.b32 [addr], {v0, v1, v2, v3};  sm_90 (16-byte aligned)
__device__ __forceinline__ void st_volatile_shared_cluster_v4_b32(unsigned addr, unsigned v0,
                                                                  unsigned v1, unsigned v2,
                                                                  unsigned v3) {
    asm volatile("st.volatile.shared::cluster.v4.b32 [%0], {%1, %2, %3, %4};"
                 :: "r"(addr), "r"(v0), "r"(v1), "r"(v2), "r"(v3) : "memory");
}

// ---- mbarrier ops on a barrier of a peer CTA (a mapa address) -------------------------
// A remote arrive returns no state: its destination is the sink `_`.

// PTX: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [addr], count;  sm_90
__device__ __forceinline__ void mbarrier_arrive_release_cluster_shared_cluster_b64(unsigned addr,
                                                                                   unsigned count) {
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0], %1;"
                 :: "r"(addr), "r"(count) : "memory");
}

// PTX: mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [addr], txCount;  sm_90
__device__ __forceinline__ void mbarrier_expect_tx_relaxed_cluster_shared_cluster_b64(
    unsigned addr, unsigned tx_bytes) {
    asm volatile("mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [%0], %1;"
                 :: "r"(addr), "r"(tx_bytes) : "memory");
}

// PTX: mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [addr], txCount;  sm_90
__device__ __forceinline__ void mbarrier_arrive_expect_tx_release_cluster_shared_cluster_b64(
    unsigned addr, unsigned tx_bytes) {
    asm volatile("mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%0], %1;"
                 :: "r"(addr), "r"(tx_bytes) : "memory");
}

// ---- the cluster barrier (every non-exited thread of the cluster, warp-uniform) --------

// PTX: barrier.cluster.arrive.aligned;  sm_90 (.release by default)
__device__ __forceinline__ void barrier_cluster_arrive_aligned() {
    asm volatile("barrier.cluster.arrive.aligned;" ::: "memory");
}

// PTX: barrier.cluster.arrive.relaxed.aligned;  sm_90 (orders none of the thread's accesses)
__device__ __forceinline__ void barrier_cluster_arrive_relaxed_aligned() {
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

// PTX: barrier.cluster.wait.aligned;  sm_90 (.acquire by default; it cannot time out)
__device__ __forceinline__ void barrier_cluster_wait_aligned() {
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}

// ---- st.async: a store into a peer CTA that signals complete_tx on a barrier there -----
// `addr` and `mbar` are mapa addresses in the same CTA (PTX 9.7.9.12).

// PTX: st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [addr], v, [mbar];  sm_90
__device__ __forceinline__ void st_async_shared_cluster_mbarrier_complete_tx_bytes_b32(
    unsigned addr, unsigned v, unsigned mbar) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
                 :: "r"(addr), "r"(v), "r"(mbar) : "memory");
}

// PTX: st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [addr], {v0, v1}, [mbar];  sm_90
__device__ __forceinline__ void st_async_shared_cluster_mbarrier_complete_tx_bytes_v2_b32(
    unsigned addr, unsigned v0, unsigned v1, unsigned mbar) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];"
                 :: "r"(addr), "r"(v0), "r"(v1), "r"(mbar) : "memory");
}

// PTX: st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [addr], {v0, v1, v2, v3}, [mbar];  sm_90
__device__ __forceinline__ void st_async_shared_cluster_mbarrier_complete_tx_bytes_v4_b32(
    unsigned addr, unsigned v0, unsigned v1, unsigned v2, unsigned v3, unsigned mbar) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32"
                 " [%0], {%1, %2, %3, %4}, [%5];"
                 :: "r"(addr), "r"(v0), "r"(v1), "r"(v2), "r"(v3), "r"(mbar) : "memory");
}

// ---- fence.proxy.async by state space (.shared::cta is in ptx_wrappers.cpp) -------------

// PTX: fence.proxy.async.shared::cluster;  sm_90
__device__ __forceinline__ void fence_proxy_async_shared_cluster() {
    asm volatile("fence.proxy.async.shared::cluster;" ::: "memory");
}

// PTX: fence.proxy.async.global;  sm_90
__device__ __forceinline__ void fence_proxy_async_global() {
    asm volatile("fence.proxy.async.global;" ::: "memory");
}

// PTX: fence.proxy.async;  sm_90 (no state space: all of them)
__device__ __forceinline__ void fence_proxy_async() {
    asm volatile("fence.proxy.async;" ::: "memory");
}

// ---- multicast TMA loads: the same bytes into every CTA of ctaMask -----------------------
// ctaMask is a 16-bit operand (bit i = %cluster_ctarank i). The data lands at dstMem's
// CTA-relative offset in each masked CTA, and each one's barrier at mbar's offset gets
// complete_tx for the bytes it received. .multicast::cluster runs on sm_90 but is only fast
// on sm_90a (PTX 9.7.9.25.5).

// PTX: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [dstMem], [srcMem], size, [mbar], ctaMask;  sm_90
__device__ __forceinline__ void cp_async_bulk_shared_cluster_global_mbarrier_multicast_cluster(
    unsigned dst, const void* src, unsigned bytes, unsigned mbar, unsigned short cta_mask) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1], %2, [%3], %4;"
                 :: "r"(dst), "l"(src), "r"(bytes), "r"(mbar), "h"(cta_mask) : "memory");
}
)ptx";

std::string multicast_tensor_instruction(int rank) {
    return fmt::format(
        "cp.async.bulk.tensor.{}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster",
        rank);
}

// The tensor forms for ranks 1..5: the pattern of the non-multicast wrappers in
// ptx_wrappers.cpp plus the ctaMask operand after [mbar].
std::string multicast_tensor_wrapper(int rank) {
    std::string params, operands, coords_ptx, coords_doc;
    for (int i = 0; i < rank; ++i) {
        const char* sep = i == 0 ? "" : ", ";
        params += fmt::format(", int c{}", i);
        operands += fmt::format(", \"r\"(c{})", i);
        coords_ptx += fmt::format("{}%{}", sep, i + 2);
        coords_doc += fmt::format("{}c{}", sep, i);
    }
    return fmt::format(
        "// PTX: {0} [dstMem], [tensorMap, {{{2}}}], [mbar], ctaMask;  sm_90\n"
        "__device__ __forceinline__ void {1}(\n"
        "    unsigned dst, const void* tmap{3}, unsigned mbar, unsigned short cta_mask) {{\n"
        "    asm volatile(\"{0}\"\n"
        "                 \" [%0], [%1, {{{4}}}], [%{5}], %{6};\"\n"
        "                 :: \"r\"(dst), \"l\"(tmap){7}, \"r\"(mbar), \"h\"(cta_mask) : \"memory\");\n"
        "}}\n\n",
        multicast_tensor_instruction(rank), multicast_tensor_wrapper_name(rank), coords_doc, params,
        coords_ptx, rank + 2, rank + 3, operands);
}

}  // namespace

std::string multicast_tensor_wrapper_name(int rank) {
    return fmt::format("cp_async_bulk_tensor_{}d_shared_cluster_global_tile_mbarrier_multicast_cluster", rank);
}

std::vector<std::string> ptx_cluster_wrapper_names() {
    std::vector<std::string> names = {
        "read_cluster_ctarank",
        "mapa_shared_cluster_u32",
        "ld_volatile_shared_cluster_b8",
        "ld_volatile_shared_cluster_b16",
        "ld_volatile_shared_cluster_b32",
        "ld_volatile_shared_cluster_v2_b32",
        "ld_volatile_shared_cluster_v4_b32",
        "st_volatile_shared_cluster_b8",
        "st_volatile_shared_cluster_b16",
        "st_volatile_shared_cluster_b32",
        "st_volatile_shared_cluster_v2_b32",
        "st_volatile_shared_cluster_v4_b32",
        "mbarrier_arrive_release_cluster_shared_cluster_b64",
        "mbarrier_expect_tx_relaxed_cluster_shared_cluster_b64",
        "mbarrier_arrive_expect_tx_release_cluster_shared_cluster_b64",
        "barrier_cluster_arrive_aligned",
        "barrier_cluster_arrive_relaxed_aligned",
        "barrier_cluster_wait_aligned",
        "st_async_shared_cluster_mbarrier_complete_tx_bytes_b32",
        "st_async_shared_cluster_mbarrier_complete_tx_bytes_v2_b32",
        "st_async_shared_cluster_mbarrier_complete_tx_bytes_v4_b32",
        "fence_proxy_async_shared_cluster",
        "fence_proxy_async_global",
        "fence_proxy_async",
        "cp_async_bulk_shared_cluster_global_mbarrier_multicast_cluster",
    };
    for (int rank = 1; rank <= 5; ++rank) names.push_back(multicast_tensor_wrapper_name(rank));
    return names;
}

std::string_view ptx_cluster_wrappers_source() {
    static const std::string source = [] {
        std::string s(kClusterSource);
        s += "\n";
        for (int rank = 1; rank <= 5; ++rank) s += multicast_tensor_wrapper(rank);
        return s;
    }();
    return source;
}

}  // namespace tmasim::device
