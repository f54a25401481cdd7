#include "model/core/hazard_rules.h"

#include <stdexcept>

#include <fmt/format.h>

namespace tmasim::model {

const std::vector<HazardRule>& HazardRules::all() {
    using O = Outcome;
    static const std::vector<HazardRule> table = {
        // Proxies (B)
        {"proxy.generic_to_async", O::hazard,
         "generic writes read by the async proxy need fence.proxy.async on the causality path",
         "PTX 9.7.13.4, 9.7.15.4; semantics.md B12, B14, scenarios 7, 8, 16, 24"},
        {"proxy.async_write_after_generic", O::hazard,
         "an async-proxy write (TMA or bulk load, multicast) of shared bytes generic accesses read or wrote before "
         "needs fence.proxy.async on the causality path",
         "PTX 8.6, 9.7.13.4; semantics.md B12, scenario 26"},
        // mbarrier (A)
        {"mbarrier.uninit", O::hazard, "an mbarrier must be initialised before any other operation",
         "PTX 9.7.13.15; semantics.md A3"},
        {"mbarrier.reinit", O::hazard, "init on a live barrier is undefined; invalidate it first",
         "PTX 9.7.13.15.9; semantics.md A3, scenario 13"},
        {"mbarrier.count_range", O::hazard, "the expected arrival count must be 1..2^20-1",
         "PTX 9.7.13.15.2; semantics.md A2"},
        {"mbarrier.pending_range", O::hazard, "pending arrivals must stay within 0..2^20-1",
         "PTX 9.7.13.15.2, 9.7.13.15.15; semantics.md A2, A5"},
        {"mbarrier.tx_range", O::fault,
         "the tx-count must stay within +-(2^20-1); an H200 traps when it does not (unspecified launch failure)",
         "PTX 9.7.13.15.2; semantics.md A2, scenario 5"},
        {"mbarrier.parity_alias", O::hazard,
         "a parity wait may only name the current phase or the one just before; an older phase aliases",
         "PTX 9.7.13.15.16; semantics.md A8, scenario 11"},
        {"mbarrier.unobserved_phase", O::hazard,
         "a wait must return true for phase k before any arrive-on in phase k+1",
         "PTX 9.7.13.15.4; semantics.md A9, scenario 12"},
        {"mbarrier.tx_mismatch", O::hang, "a waited phase whose tx-count never returns to zero hangs",
         "PTX 9.7.13.15.6; semantics.md A7, scenarios 3, 4"},
        {"mbarrier.pending_arrivals", O::hang, "a waited phase whose arrivals never all come hangs",
         "PTX 9.7.13.15.6; semantics.md A7"},
        {"mbarrier.live_bytes_access", O::hazard,
         "while an mbarrier is live (from its init to its inval) its 8 bytes may be accessed only by mbarrier "
         "operations: no generic load or store, no async copy writing or reading them",
         "PTX 9.7.13.15 (non-mbarrier operations on an initialized mbarrier object), 9.7.13.15.3, 9.7.13.15.10; "
         "semantics.md A11"},
        {"mbarrier.init_over_data", O::hazard,
         "mbarrier.init may take bytes only when their use as data is over and ordered before it: no async copy "
         "still writing them, no async read still reading them, no other warp's unordered access",
         "PTX 9.7.13.15.3, 9.7.13.15.9, 9.7.9.25.1, 8.9 (data race); semantics.md A11, C17, C22"},
        // Completion and reuse (C)
        {"race.read_before_complete", O::hazard,
         "shared bytes an async copy writes may be accessed only after a wait observes its completion",
         "PTX 9.7.9.25.1; semantics.md C17, scenario 2"},
        {"race.early_pass", O::hazard,
         "the phase the thread waited for completed without these bytes; they land in a later phase",
         "PTX 9.7.13.15.6, 9.7.9.25.1; semantics.md A4, C17, scenarios 6, 15"},
        {"race.store_source_overwrite", O::hazard,
         "the source of a bulk/TMA store may be changed only after bulk.wait_group.read covers it",
         "PTX 9.7.9.25.1, 9.7.9.27.2.2; semantics.md C17, C19, scenario 9"},
        {"race.wgmma_operand_overwrite", O::hazard,
         "the shared-memory operands of wgmma.mma_async may be changed only after a wgmma.wait_group retires it",
         "PTX 9.7.15.7.3, 9.7.15.4; semantics.md C17, F32"},
        {"race.global_after_read_only", O::hazard,
         "bulk.wait_group.read covers only the source read; the global result needs wait_group",
         "PTX 9.7.9.27.2.2; semantics.md C19, scenario 10"},
        {"race.global_before_complete", O::hazard,
         "global bytes a bulk/TMA store writes may be read only after bulk.wait_group covers it",
         "PTX 9.7.9.25.1, 9.7.9.27.2; semantics.md C17, C18"},
        {"race.cp_async_pending", O::hazard,
         "cp.async data is visible to its thread only after cp.async.wait_group/wait_all covers its group",
         "PTX 9.7.9.25.3; semantics.md C20, scenario 14"},
        {"race.cp_async_unwaited", O::hazard,
         "cp.async data reaches other threads only through a barrier after the issuer's wait",
         "PTX 9.7.9.25.3, 8.9.1.1; semantics.md C20, scenario 14"},
        {"race.cp_async_waw", O::hazard,
         "a cp.async may not write shared bytes an earlier cp.async still writes: wait for the earlier one first",
         "PTX 9.7.9.25.3, 8.9 (data race); semantics.md C20"},
        {"race.async_overlap", O::hazard,
         "an async copy may not write or read shared bytes another async copy still writes: observe its "
         "completion first",
         "PTX 9.7.9.25.1, 8.9 (data race); semantics.md C17, scenario 27"},
        {"race.shared_raw", O::hazard,
         "a thread may read shared bytes another thread wrote only when a barrier orders the write before the read",
         "PTX 8.9 (causality order, data race), 9.7.13.1, 9.7.13.15; semantics.md C22"},
        {"race.shared_war", O::hazard,
         "a thread may write shared bytes another thread read only when a barrier orders the read before the write",
         "PTX 8.9 (causality order, data race), 9.7.13.1, 9.7.13.15; semantics.md C22"},
        {"race.shared_waw", O::hazard,
         "two threads may write the same shared bytes only when a barrier orders one write before the other",
         "PTX 8.9 (causality order, data race), 9.7.13.1, 9.7.13.15; semantics.md C22"},
        // Operands (D)
        {"bulk.alignment", O::hazard, "bulk sizes and addresses must be 16-byte (tensor smem: 128-byte) aligned",
         "PTX 9.7.9.25.4.1, 5.5.3; semantics.md D22, D25"},
        {"tma.negative_store_coords", O::fault,
         "only tensor loads may start at negative coordinates; a store traps",
         "PTX 9.7.9.27.1.1, 5.5.3.3; semantics.md D26, scenario 18"},
        {"tma.inner_coord_alignment", O::fault,
         "a tiled tensor load or store must start each row on a 16-byte boundary (innermost coordinate x "
         "element size a multiple of 16); Hopper traps with an illegal instruction",
         "measured on the H200 (device/scripts/probe_misaligned.sh); Gluon hopper/tma.py alignment check; "
         "semantics.md H37"},
        // Blackwell gather4/scatter4 (G)
        {"tma.gather4_col_alignment", O::fault,
         "the column of tile::gather4/scatter4 must be a 16-byte aligned byte offset; the hardware traps "
         "(illegal instruction)",
         "PTX 9.7.9.27.1.2; Gluon tutorial 09-tma-gather-scatter; semantics.md G35, scenario 23d"},
        {"tma.scatter4_negative_row", O::fault,
         "tile::scatter4 rows must be non-negative (only gather4 may address rows below 0); the hardware traps",
         "PTX 9.7.9.27.1.2; Gluon tutorial 09-tma-gather-scatter; semantics.md G35, D26, scenario 23c"},
        // wgmma (F)
        {"wgmma.missing_fence", O::hazard,
         "every warp of the warpgroup must issue wgmma.fence before its first wgmma.mma_async and between a "
         "register access of an accumulator and a wgmma.mma_async on it (chains of same-shape mmas excepted)",
         "PTX 9.7.15.7.1; semantics.md F32, scenario 25a"},
        {"wgmma.acc_before_wait", O::hazard,
         "accumulator registers a wgmma.mma_async writes may be read or written only after a wgmma.wait_group "
         "covers its committed group",
         "PTX 9.7.15.5.2, 9.7.15.7.3; semantics.md F32, B13, scenario 25b"},
        // Not a rule of PTX: how the model ends a run on a value it cannot execute.
        {"model.fault", O::fault, "the op cannot be executed (an index or range outside its buffer)",
         "scenarios/FORMAT.md"},
        // Kernels (kernel scenarios): how a kernel's own PTX ends a run.
        {"kernel.trap", O::fault, "a kernel that executes trap stops the grid (CUDA_ERROR_LAUNCH_FAILED)",
         "PTX 9.7.19.x (trap); docs/kernels.md"},
        {"kernel.watchdog", O::hang,
         "a kernel still running past the model's watchdog (200M cycles) spins on something nothing will change",
         "docs/kernels.md (the watchdog and the try_wait spin rule)"},
        {"sync.deadlock", O::hang, "a barrier.sync that some live warp never reaches hangs",
         "PTX 9.7.13.1; semantics.md F33"},
        {"cp_async.wait_deadlock", O::hang, "a cp.async group wait whose copies never land hangs",
         "PTX 9.7.9.25.3; semantics.md C20"},
        {"bulk.wait_deadlock", O::hang, "a group wait whose groups never complete hangs",
         "PTX 9.7.9.27.2; semantics.md C18"},
        // Clusters: DSMEM, remote mbarriers, the cluster barrier, st.async, multicast
        {"race.dsmem_unsynced", O::hazard,
         "accesses of two CTAs to the same shared bytes, one a write, need a cluster barrier or an mbarrier "
         "release/acquire (remote arrive, st.async completion) between them",
         "PTX 8.9 (causality order), 9.7.13.3, 9.7.13.15.8; CUDA PG distributed shared memory; semantics.md F33"},
        {"mbarrier.remote_before_init_published", O::hazard,
         "a peer may use a CTA's mbarrier only after its init happens-before the use: init, then a release "
         "(cluster.arrive, or fence.mbarrier_init before a relaxed one) and the peer's cluster.wait",
         "PTX 9.7.13.15.8, 9.7.13.4 (fence.mbarrier_init), 9.7.13.3; semantics.md A10"},
        {"cluster.double_arrive", O::hazard,
         "each thread arrives at the cluster barrier once per phase, and waits before it arrives again",
         "PTX 9.7.13.3; semantics.md F33"},
        {"cluster.deadlock", O::hang, "a cluster.wait whose phase some live thread of the cluster never arrives at hangs",
         "PTX 9.7.13.3; semantics.md F33"},
        {"cluster.peer_exited", O::hazard,
         "a CTA must not exit before every peer's use of its shared memory (DSMEM, remote mbarrier, st.async, "
         "multicast) happens-before its exit",
         "CUDA PG distributed shared memory; PTX 9.7.13.3; semantics.md F33"},
        {"st_async.barrier_other_cta", O::hazard,
         "st.async's destination and its mbarrier must be in the same CTA; otherwise the behaviour is undefined "
         "(the model drops the store and its complete_tx)",
         "PTX 9.7.9.12; semantics.md F31, scenario 22"},
        {"multicast.mask_outside_cluster", O::hazard,
         "ctaMask bit i names %cluster_ctarank i; bits at or above the cluster size name no CTA (dropped)",
         "PTX 9.7.9.25.4.1, 9.7.9.27.1.2; semantics.md D23, scenario 17"},
        // Tensor maps in global memory (B15, C17)
        {"tensormap.no_release", O::hazard,
         "a write of a tensor map in global memory (tensormap.replace, a store) must be released to the tensormap "
         "proxy before a TMA op uses the map: fence.proxy.tensormap::generic.release by the writer after the write, "
         "or tensormap.cp_fenceproxy, which copies and releases",
         "PTX 9.7.13.4, 9.7.9.28-29; CUDA PG 4.11.2.2.3; semantics.md B15, scenario 21"},
        {"tensormap.no_acquire", O::hazard,
         "a thread may use a tensor map in global memory only after fence.proxy.tensormap::generic.acquire on it in "
         "its CTA, by itself or by a thread ordered before it by a sync, made after the write was visible to that "
         "thread (scope gpu for another CTA, sys for the host's copy); fences order, they do not synchronise threads",
         "PTX 9.7.13.4; CUDA PG 4.11.2.2 (__device__ CUtensorMap), 4.11.2.2.3; semantics.md B15, B16, scenario 21"},
        {"race.tensormap_in_use", O::hazard,
         "a tensor map may be changed only after every TMA op reading it completed (a load's wait, a store's "
         "bulk.wait_group.read)",
         "PTX 9.7.9.25.1, 9.7.9.27.2.2; semantics.md C17, C19"},
        {"race.tensormap_staged", O::hazard,
         "tensormap.cp_fenceproxy reads the staged copy in shared memory with generic reads of every thread of "
         "the warp: another thread's tensormap.stage or replace of it must be ordered before by a sync "
         "(__syncwarp in the guide)",
         "PTX 9.7.9.29, 8.9; CUDA PG 4.11.2.2.2; semantics.md B15"},
        {"tensormap.unstaged", O::hazard,
         "the staged copy must be filled (tensormap.stage: copy of the template map) before tensormap.replace "
         "changes it or tensormap.cp_fenceproxy copies it; shared memory starts undefined",
         "PTX 9.7.9.28-29; CUDA PG 4.11.2.2.2"},
        {"tensormap.invalid_fields", O::fault,
         "the fields tensormap.replace left must still make a valid tiled map (cuTensorMapEncodeTiled's rules); "
         "PTX leaves the use of an invalid map undefined and the model stops the run",
         "PTX 9.7.9.28 (tensormap new_val validity); DRV cuTensorMapEncodeTiled; semantics.md D27"},
        {"tensormap.outside_allocation", O::fault,
         "the box a TMA op moves through a map must lie inside the map's tensor: dims and strides (or a retarget) "
         "that reach past the allocation read or write other memory",
         "PTX 5.5.3, 9.7.9.28; CUDA PG 4.11.2.2.2"},
    };
    return table;
}

const HazardRule& HazardRules::get(const std::string& id) {
    for (const auto& r : all())
        if (r.id == id) return r;
    throw std::out_of_range("model: rule id '" + id + "' is not in the rule table");
}

std::string HazardRules::message(const std::string& id, const std::string& what) {
    const HazardRule& r = get(id);
    return fmt::format("{}: {} [{}]", what, r.statement, r.reference);
}

std::string HazardRules::cite(const std::string& id) { return "[" + get(id).reference + "]"; }

}  // namespace tmasim::model
