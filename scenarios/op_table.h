#pragma once
// The one table of ops: every op of the scenario language is one row here, and everything
// that names ops (OpKind, the YAML spellings, the keys each op takes, its family, its
// flags, its minimum architecture) is derived from it. CONTRIBUTING.md says which other
// files a new row needs.
//
// A row: X(enum name, YAML spelling, family, keys besides op/by/label, flags, minimum SM).
// The rows' order is the order of "allowed: ..." in messages. A row's keys are read and
// checked by its family's reader (scenarios/op_loader.cpp); the backends dispatch on the
// family with one switch each (model/sm/warp_process.cpp, device/emit/kernel_writer_ops.cpp).
#define TMASIM_OP_TABLE(X)                                                                                  \
    X(mbarrier_init, "mbarrier.init", barrier, "barrier, count", kNone, 90)                                  \
    X(mbarrier_inval, "mbarrier.inval", barrier, "barrier", kNone, 90)                                       \
    X(fence_mbarrier_init, "fence.mbarrier_init", fence, "", kNone, 90)                                      \
    X(sync, "sync", cta_sync, "", kWait, 90)                                                                 \
    X(mbarrier_arrive, "mbarrier.arrive", barrier, "barrier, count, cta", kNone, 90)                         \
    X(mbarrier_arrive_expect_tx, "mbarrier.arrive_expect_tx", barrier, "barrier, bytes, cta", kNone, 90)     \
    X(mbarrier_expect_tx, "mbarrier.expect_tx", barrier, "barrier, bytes, cta", kNone, 90)                   \
    X(mbarrier_wait, "mbarrier.wait", barrier_wait, "barrier, parity", kWait, 90)                            \
    X(tma_load, "tma.load", async_copy, "map, coords, dst, barrier, multicast", kAsync | kWritesShared, 90)  \
    X(tma_store, "tma.store", async_copy, "map, coords, src", kAsync | kReadsShared, 90)                     \
    X(bulk_load, "bulk.load", async_copy, "global, offset, bytes, dst, barrier, multicast",                  \
      kAsync | kWritesShared, 90)                                                                            \
    X(bulk_store, "bulk.store", async_copy, "src, global, offset, bytes", kAsync | kReadsShared, 90)         \
    X(bulk_commit_group, "bulk.commit_group", bulk_group, "", kNone, 90)                                     \
    X(bulk_wait_group, "bulk.wait_group", bulk_group, "n", kWait, 90)                                        \
    X(bulk_wait_group_read, "bulk.wait_group_read", bulk_group, "n", kWait, 90)                              \
    X(fence_proxy_async, "fence.proxy.async", fence, "space", kNone, 90)                                     \
    X(compute, "compute", compute, "buffer, fn, start, count", kReadsShared | kWritesShared, 90)             \
    X(loop, "loop", loop, "var, count, body", kNone, 90)                                                     \
    X(shared_load, "shared.load", per_thread, "buffer, index, width, cta", kPerThread | kReadsShared, 90)    \
    X(shared_store, "shared.store", per_thread, "buffer, index, width, value, cta",                           \
      kPerThread | kWritesShared, 90)                                                                        \
    X(global_load, "global.load", per_thread, "global, index, width", kPerThread, 90)                        \
    X(global_store, "global.store", per_thread, "global, index, width, value", kPerThread, 90)               \
    X(shared_snapshot, "shared.snapshot", snapshot, "buffer", kReadsShared, 90)                              \
    X(cp_async, "cp.async", cp_async, "global, src_index, dst, dst_index, size, src_size, cache",            \
      kPerThread | kAsync | kWritesShared, 90)                                                               \
    X(cp_async_commit_group, "cp.async.commit_group", cp_async, "", kNone, 90)                               \
    X(cp_async_wait_group, "cp.async.wait_group", cp_async, "n", kWait, 90)                                  \
    X(cp_async_wait_all, "cp.async.wait_all", cp_async, "", kWait, 90)                                       \
    X(cp_async_mbarrier_arrive, "cp.async.mbarrier.arrive", cp_async, "barrier, noinc", kAsync, 90)          \
    X(tma_prefetch, "tma.prefetch", async_copy, "map, coords", kAsync, 90)                                   \
    X(bulk_prefetch, "bulk.prefetch", async_copy, "global, offset, bytes", kAsync, 90)                       \
    X(bulk_reduce, "bulk.reduce", async_copy, "src, global, offset, bytes, reduce", kAsync | kReadsShared, 90) \
    X(tma_reduce, "tma.reduce", async_copy, "map, coords, src, reduce", kAsync | kReadsShared, 90)           \
    X(tma_gather4, "tma.gather4", async_copy, "map, rows, col, dst, barrier", kAsync | kWritesShared, 100)   \
    X(tma_scatter4, "tma.scatter4", async_copy, "map, rows, col, src", kAsync | kReadsShared, 100)           \
    X(cluster_arrive, "cluster.arrive", cluster_barrier, "relaxed", kNone, 90)                               \
    X(cluster_wait, "cluster.wait", cluster_barrier, "", kWait, 90)                                          \
    X(cluster_sync, "cluster.sync", cluster_barrier, "", kWait, 90)                                          \
    X(st_async, "st.async", st_async, "buffer, index, width, value, barrier, cta, barrier_cta",              \
      kPerThread | kAsync, 90)                                                                               \
    X(tensormap_stage, "tensormap.stage", tensormap, "map", kNone, 90)                                       \
    X(tensormap_replace, "tensormap.replace", tensormap, "map, field, dim, value, global, space", kNone, 90) \
    X(tensormap_cp_fenceproxy, "tensormap.cp_fenceproxy", tensormap, "map, scope", kNone, 90)                \
    X(fence_proxy_tensormap_release, "fence.proxy.tensormap.release", tensormap, "scope", kNone, 90)         \
    X(fence_proxy_tensormap_acquire, "fence.proxy.tensormap.acquire", tensormap, "map, scope", kNone, 90)    \
    X(wgmma_fence, "wgmma.fence", wgmma, "", kNone, 90)                                                      \
    X(wgmma_mma_async, "wgmma.mma_async", wgmma, "acc, a, b, k, scale_d, swizzle", kAsync | kReadsShared, 90) \
    X(wgmma_commit_group, "wgmma.commit_group", wgmma, "", kNone, 90)                                        \
    X(wgmma_wait_group, "wgmma.wait_group", wgmma, "n", kWait, 90)                                           \
    X(wgmma_acc_fill, "wgmma.acc_fill", wgmma, "acc, value", kNone, 90)                                      \
    X(wgmma_acc_store, "wgmma.acc_store", wgmma, "acc, buffer", kWritesShared, 90)                          \
    X(bar_sync, "bar.sync", named_barrier, "id, count", kWait, 90)                                           \
    X(bar_arrive, "bar.arrive", named_barrier, "id, count", kNone, 90)                                       \
    X(layout_global_load, "layout.global_load", layout, "tile, global, base, strides, mask", kNone, 90)      \
    X(layout_global_store, "layout.global_store", layout, "tile, global, base, strides, mask", kNone, 90)    \
    X(layout_shared_store, "layout.shared_store", layout, "tile, buffer, layout", kWritesShared, 90)         \
    X(layout_shared_load, "layout.shared_load", layout, "tile, buffer, layout", kReadsShared, 90)           \
    X(convert_layout, "convert_layout", layout, "tile, to, scratch, layout",                                  \
      kWait | kReadsShared | kWritesShared, 90)                                                             \
    X(layout_reduce, "layout.reduce", layout, "tile, axis, to, scratch, combine",                              \
      kWait | kReadsShared | kWritesShared, 90)                                                             \
    X(ld, "ld", kernel_memory, "", kPerThread | kKernelOnly, 90)                                              \
    X(st, "st", kernel_memory, "", kPerThread | kKernelOnly, 90)                                              \
    X(atom, "atom", kernel_memory, "", kPerThread | kKernelOnly, 90)                                          \
    X(red_async, "red.async", kernel_memory, "", kPerThread | kAsync | kKernelOnly, 90)                       \
    X(fence_memory, "fence", kernel_memory, "", kKernelOnly, 90)

#include <string>

namespace tmasim {

// What a backend dispatches on: the ops of one family share their keys' meaning and run
// through one handler (CONTRIBUTING.md, "How to add an op").
enum class OpFamily {
    barrier,          // mbarrier.init/inval/arrive/expect_tx on this CTA's or a peer's barrier
    barrier_wait,     // mbarrier.wait
    cta_sync,         // barrier.sync 0
    fence,            // fence.mbarrier_init, fence.proxy.async
    async_copy,       // everything the TMA unit moves: loads, stores, prefetches, reduces, gather/scatter
    bulk_group,       // bulk async-groups: commit and wait
    per_thread,       // one generic access per thread: shared/global loads and stores
    snapshot,         // shared.snapshot
    cp_async,         // cp.async (LDGSTS), its groups and its mbarrier arrive
    compute,          // element-wise update of a shared buffer
    loop,             // control flow
    cluster_barrier,  // barrier.cluster arrive/wait/sync
    st_async,         // st.async into a peer CTA with complete_tx on its barrier
    tensormap,        // tensor maps in global memory and their proxy fences
    wgmma,            // warpgroup MMA and its accumulators
    named_barrier,    // barrier.sync / barrier.arrive id, count: a subset of the CTA's warps
    layout,           // a register tile in a Gluon layout: global/shared loads and stores, convert_layout
    kernel_memory,    // PTX instructions of kernel scenarios with no op of their own: generic ld/st, atom, red, fences
};

// Flags of a row. They say what the op does, for the checks that apply to every op that
// does it.
enum OpFlag : unsigned {
    kNone = 0,
    kAsync = 1u << 0,         // hands work to an asynchronous unit (TMA, LDGSTS, tensor core)
    kWait = 1u << 1,          // may block the warp until something else happens
    kReadsShared = 1u << 2,   // reads shared memory (directly or through the async proxy)
    kWritesShared = 1u << 3,  // writes shared memory (directly or through the async proxy)
    kPerThread = 1u << 4,     // every executing thread evaluates its own tid/lane/warp expressions
    kKernelOnly = 1u << 5,    // names a PTX instruction of a kernel scenario; a program may not use it
};

enum class OpKind {
#define TMASIM_OP_ENUM(name, spelling, family, keys, flags, min_sm) name,
    TMASIM_OP_TABLE(TMASIM_OP_ENUM)
#undef TMASIM_OP_ENUM
};

struct OpInfo {
    OpKind kind;
    const char* spelling;  // the YAML spelling, also used in traces and messages
    OpFamily family;
    const char* keys;  // comma-separated, besides op, by and label
    unsigned flags;
    int min_sm;  // 90: sm_90 (Hopper); 100: sm_100 (Blackwell)
};

inline constexpr OpInfo kOpTable[] = {
#define TMASIM_OP_ROW(name, spelling, family, keys, flags, min_sm) \
    {OpKind::name, spelling, OpFamily::family, keys, flags, min_sm},
    TMASIM_OP_TABLE(TMASIM_OP_ROW)
#undef TMASIM_OP_ROW
};

constexpr const OpInfo& op_info(OpKind k) { return kOpTable[static_cast<int>(k)]; }
constexpr OpFamily op_family(OpKind k) { return op_info(k).family; }
constexpr bool op_has(OpKind k, OpFlag f) { return (op_info(k).flags & f) != 0; }
// Whether `key` is one of the row's keys (a whole entry of its comma-separated list).
bool op_takes_key(OpKind k, const std::string& key);

}  // namespace tmasim
