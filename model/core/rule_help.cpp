#include "model/core/rule_help.h"

namespace tmasim::model {

const std::vector<RuleHelp>& RuleHelpTable::all() {
    static const std::vector<RuleHelp> table = {
        // B. Proxies
        {"proxy.generic_to_async",
         "Plain stores (and cp.async and st.async) write through the generic proxy; a TMA store or a wgmma "
         "operand read goes through the async proxy, which keeps no order with generic accesses. Only "
         "fence.proxy.async on the causal path between the two orders them. A fence in the issuing thread "
         "before the sync that hands it the writes covers nothing.",
         "Add {op: fence.proxy.async} in the threads that wrote the bytes, after their writes and before the "
         "sync (or release-arrive) that passes them on; or in the issuing thread after that sync and before "
         "the async op.",
         "B12"},
        {"proxy.async_write_after_generic",
         "The other direction of the same rule: bytes threads read (or wrote) with plain loads and stores "
         "are overwritten by an async-proxy write, a TMA or bulk load or a multicast delivery. A barrier "
         "orders the generic accesses before the issue, but not the async proxy's write after them: without "
         "fence.proxy.async on that path the copy may land while a read has not yet been performed, and the "
         "reader sees the new tile.",
         "Add {op: fence.proxy.async} in the threads that read the bytes, after their last read and before "
         "the sync or arrive that releases the buffer (the ring's 'empty' arrive); or in the issuing thread "
         "after the sync or wait that tells it the buffer is free, before the load.",
         "B12"},
        // A. mbarrier
        {"mbarrier.uninit",
         "An mbarrier is only a 64-bit word until mbarrier.init gives it a phase, a count and a tx-count; any "
         "arrive, expect or wait before that reads garbage.",
         "Initialise the barrier first: {op: mbarrier.init, by: thread0}, {op: fence.mbarrier_init}, {op: sync} "
         "before any thread or TMA op uses it.",
         "A3"},
        {"mbarrier.reinit",
         "init on a barrier that is still live overwrites a phase other threads may still be waiting on.",
         "Invalidate it first ({op: mbarrier.inval}) after every use has finished, then init again; or use a "
         "second barrier.",
         "A3"},
        {"mbarrier.live_bytes_access",
         "From mbarrier.init until mbarrier.inval the 8 bytes are an opaque barrier object that only mbarrier "
         "operations may touch. A store, a shared.store, compute, a cp.async or a TMA/bulk load landing there "
         "overwrites the phase and counts other threads wait on; a load or a TMA store reads the barrier's state "
         "as data.",
         "Keep data out of the barrier's bytes while it lives: move the buffer or the barrier (offset:), or end the "
         "barrier first: every wait on it done, {op: mbarrier.inval, barrier: bar, by: thread0}, then {op: sync} "
         "before any thread uses the bytes as data.",
         "A11"},
        {"mbarrier.init_over_data",
         "mbarrier.init writes the 8 bytes. If a cp.async or TMA load still writes them, its landing can overwrite "
         "the fresh barrier; if a TMA store or wgmma still reads them, or another warp uses them without a barrier "
         "in between, that use sees the barrier instead of its data.",
         "Finish the data's use before the init and order it: wait for the copy ({op: cp.async.wait_all}, or the "
         "mbarrier.wait that shows the TMA load complete), {op: bulk.wait_group_read, n: 0} for a TMA store, then "
         "{op: sync} so the other warps' accesses come first; only then init the barrier.",
         "A11"},
        {"mbarrier.count_range",
         "The arrival count is a 20-bit field; 0 or 2^20 and above cannot be represented.",
         "Give mbarrier.init a count between 1 and 1048575.",
         "A2"},
        {"mbarrier.pending_range",
         "More arrivals than the phase expects drive the pending count below zero, which PTX leaves undefined.",
         "Make the number of arrivals per phase equal the init count (check which threads run the arrive).",
         "A2"},
        {"mbarrier.tx_range",
         "The tx-count is a signed 20-bit field; expecting more than 2^20-1 bytes in one phase overflows it "
         "(an H200 traps).",
         "Split the transfer over several phases or barriers so each phase expects fewer than 2^20 bytes.",
         "A2"},
        {"mbarrier.parity_alias",
         "A wait names a phase by parity only, and the hardware can answer only for the current phase and the "
         "one before. A thread two or more phases behind gets the answer for a different phase.",
         "Keep every waiter at most one phase behind: add stages or barriers to the ring, or make the producer "
         "wait on an 'empty' barrier before it refills a stage.",
         "A8"},
        {"mbarrier.unobserved_phase",
         "If nobody has seen phase k complete, an arrival meant for phase k+1 may be counted in phase k.",
         "Wait for the phase (mbarrier.wait with its parity) before arriving on the next one.",
         "A9"},
        {"mbarrier.tx_mismatch",
         "A phase completes only when the tx-count returns to zero; bytes announced with expect_tx that never "
         "arrive, or bytes beyond them, leave it non-zero forever.",
         "Make expect_tx (or arrive_expect_tx) equal the bytes the copies deliver to this barrier: the full box "
         "for a tensor load, out-of-bounds fill included, for every destination of a multicast.",
         "A7"},
        {"mbarrier.pending_arrivals",
         "A phase completes only when every expected arrival came; the waiting threads wait forever otherwise.",
         "Make the init count equal the arrivals each phase really gets (who runs the arrive, how many times).",
         "A7"},
        // C. Completion and reuse
        {"race.read_before_complete",
         "An async copy's destination bytes land at some time after the issue; only a wait that observes the "
         "copy's completion makes them visible.",
         "Read the destination only after the mbarrier.wait (or group wait) that covers the copy.",
         "C17"},
        {"race.early_pass",
         "The waited phase completed before these bytes were counted: too small an expect, an extra arrive, or "
         "an arrive before the expect. The bytes land in a later phase, after the waiters have passed.",
         "Expect exactly the bytes of every copy that signals the barrier in this phase, with the expect before "
         "(or in) the arrive: use mbarrier.arrive_expect_tx.",
         "A4"},
        {"race.store_source_overwrite",
         "A bulk or TMA store reads its shared source some time after the issue; writing the source before the "
         "read completed changes what is stored.",
         "Commit the store ({op: bulk.commit_group}) and {op: bulk.wait_group_read, n: 0} in the issuing thread, "
         "then sync, before anyone writes the source again.",
         "C19"},
        {"race.wgmma_operand_overwrite",
         "wgmma.mma_async reads its shared operands asynchronously until its group retires.",
         "Issue wgmma.commit_group and wgmma.wait_group covering the mma before overwriting its A or B tiles.",
         "F32"},
        {"race.global_after_read_only",
         "bulk.wait_group_read returns when the source was read, not when the global bytes are written.",
         "Use {op: bulk.wait_group, n: 0} (without _read) before reading the global result.",
         "C19"},
        {"race.global_before_complete",
         "A bulk or TMA store writes global memory asynchronously; only a group wait covering it makes the "
         "bytes visible.",
         "Commit the store and wait for it with {op: bulk.wait_group, n: 0} before reading the global bytes.",
         "C18"},
        {"race.cp_async_pending",
         "cp.async bytes are visible even to the issuing thread only after a wait covers their group.",
         "Lower n in cp.async.wait_group (or use cp.async.wait_all) so the group holding these bytes is done.",
         "C20"},
        {"race.cp_async_unwaited",
         "A cp.async wait orders the bytes for the waiting thread only; other threads need a barrier after it.",
         "Have the issuing threads wait (cp.async.wait_group or cp.async.wait_all), then {op: sync} before others read.",
         "C20"},
        {"race.cp_async_waw",
         "Two cp.async copies write the same shared bytes and the later one was issued before a wait covered "
         "the earlier: which bytes end up there is undefined.",
         "Wait for the earlier copy's group (cp.async.wait_group / wait_all, then {op: sync} if another thread "
         "issued it) before issuing a copy into the same bytes.",
         "C20"},
        {"race.async_overlap",
         "Two async copies touch the same shared bytes and the second is issued before its thread observed "
         "the first one's completion: a second TMA load into a stage the first still fills, or a TMA store "
         "of a tile its load has not finished writing. The copy engine does not order them.",
         "Wait for the first copy before issuing the second: {op: mbarrier.wait} on the load's barrier (the "
         "phase its bytes complete) in the issuing thread, or in a thread that then releases to it.",
         "C17"},
        {"race.shared_raw",
         "One warp reads shared bytes another warp wrote, and no barrier orders the write before the read "
         "(a consumer reading a stage its producer is still writing). In a kernel, two lanes of one warp "
         "count too: one lane's store (or tensormap.replace) read by the warp with nothing between.",
         "Put an ordering between them: {op: sync}, a named barrier ({op: bar.arrive} by the writer, "
         "{op: bar.sync} by the reader), or an mbarrier arrive after the write and a wait before the read; "
         "between lanes of one warp, __syncwarp() (bar.warp.sync).",
         "C22"},
        {"race.shared_war",
         "One warp overwrites shared bytes another warp read, and no barrier orders the read before the write "
         "(a producer refilling a stage its consumer may still be reading).",
         "Have the reader release the bytes first: an mbarrier arrive after its last read and a wait before the "
         "write (the ring's 'empty' barrier), a named barrier, or {op: sync}.",
         "C22"},
        {"race.shared_waw",
         "Two warps write the same shared bytes and nothing orders the writes: which value stays is undefined.",
         "Order the writes with {op: sync}, a named barrier or an mbarrier phase, or give each warp its own bytes.",
         "C22"},
        // D. Operands
        {"bulk.alignment",
         "The bulk copy engine moves 16-byte units; tensor copies write shared boxes at 128-byte alignment.",
         "Use sizes and offsets that are multiples of 16 bytes, and shared buffers with align: 128 for tensor "
         "copies.",
         "D22"},
        {"tma.negative_store_coords",
         "Only tensor loads may start outside the tensor (they fill); a store at a negative coordinate traps.",
         "Start the store at a non-negative coordinate and clip the box to the tensor.",
         "D26"},
        {"tma.inner_coord_alignment",
         "Hopper's TMA moves rows in 16-byte units; a row that starts mid-unit traps with an illegal "
         "instruction.",
         "Make the innermost coordinate times the element size a multiple of 16 bytes.",
         "H37"},
        {"tma.gather4_col_alignment",
         "gather4/scatter4 move rows in 16-byte units; a misaligned column traps.",
         "Make the column times the element size a multiple of 16 bytes.",
         "G35"},
        {"tma.scatter4_negative_row",
         "Only gather4 may address rows below zero (they read as zeros); scatter4 traps.",
         "Keep scatter4 rows at 0 or above; drop rows that fall outside instead.",
         "G35"},
        // F. wgmma
        {"wgmma.missing_fence",
         "wgmma reads accumulator registers asynchronously; wgmma.fence orders earlier register accesses "
         "before the mma reads them.",
         "Add {op: wgmma.fence} in all four warps of the warpgroup before the first mma_async and after any "
         "acc_fill / acc_store of the accumulator.",
         "F32"},
        {"wgmma.acc_before_wait",
         "The accumulator belongs to the running mma until a wgmma.wait_group retires its group.",
         "Commit the mma (wgmma.commit_group) and wait (wgmma.wait_group n: 0) before reading or writing the "
         "accumulator.",
         "F32"},
        {"model.fault",
         "The model met a value it cannot execute, such as an index outside its buffer.",
         "Check the expressions of the op the message names: indices, ranges and element counts.",
         ""},
        {"kernel.trap",
         "The kernel executed PTX `trap` (a device-side assert, __trap(), or a check the compiler inserted): "
         "on the GPU the grid stops and the launch returns CUDA_ERROR_LAUNCH_FAILED.",
         "Read the instruction and source line the message names: the condition that led to the trap is the "
         "kernel's, not the model's.",
         ""},
        {"kernel.watchdog",
         "A kernel still running after the model's watchdog spins on something no unit will change: a flag "
         "in memory nobody writes, a barrier nobody arrives on outside the try_wait spin rule.",
         "Look at where each warp waits (the message names the instruction and line) and at who should "
         "release it.",
         ""},
        {"sync.deadlock",
         "A CTA-wide barrier waits for every live thread; a thread that never reaches it (another branch, an "
         "earlier hang) holds everyone.",
         "Make every thread of the CTA execute the same sequence of syncs (check `by:` selectors around it).",
         "F33"},
        {"cp_async.wait_deadlock",
         "A cp.async group wait returns only when its copies land; copies that cannot land hold it forever.",
         "Check the group's copies (sources in bounds, sizes) and the n of the wait.",
         "C20"},
        {"bulk.wait_deadlock",
         "A bulk group wait returns only when its groups complete.",
         "Check that every op committed to the group can complete.",
         "C18"},
        // Clusters
        {"race.dsmem_unsynced",
         "Two CTAs touch the same shared bytes through distributed shared memory and nothing orders the two "
         "accesses.",
         "Put a {op: cluster.sync} (or a remote mbarrier release/acquire) between the write and the other CTA's "
         "access.",
         "F33"},
        {"mbarrier.remote_before_init_published",
         "A peer may see the barrier's memory before its init: the init must be released to the cluster first.",
         "After mbarrier.init add {op: fence.mbarrier_init} and {op: cluster.sync} before peers or multicast "
         "copies use the barrier.",
         "A10"},
        {"cluster.double_arrive",
         "Each thread arrives at the cluster barrier once per phase and must wait before arriving again.",
         "Pair every cluster.arrive with a cluster.wait before the next arrive, or use cluster.sync.",
         "F33"},
        {"cluster.deadlock",
         "The cluster barrier completes only when every live thread of every CTA in the cluster arrived.",
         "Make every thread of every CTA in the cluster reach the same cluster barriers.",
         "F33"},
        {"cluster.peer_exited",
         "A CTA's shared memory is gone when it exits; a peer still reading or writing it touches freed memory.",
         "End the kernel with a {op: cluster.sync} so no CTA exits while peers still use its shared memory.",
         "F33"},
        {"st_async.barrier_other_cta",
         "st.async reports its bytes on a barrier in the destination CTA; a barrier elsewhere is undefined.",
         "Name a barrier of the destination CTA (barrier_cta equal to cta).",
         "F31"},
        {"multicast.mask_outside_cluster",
         "Bit i of ctaMask names cluster rank i; bits at or above the cluster size name no CTA.",
         "Use a mask below 1 << cluster size.",
         "D23"},
        // Tensor maps in global memory
        {"tensormap.no_release",
         "A map written in global memory is read by the tensormap proxy, which sees the write only after a "
         "release fence.",
         "After tensormap.replace add {op: fence.proxy.tensormap.release} (or use tensormap.cp_fenceproxy).",
         "B15"},
        {"tensormap.no_acquire",
         "The TMA op reads the map through the tensormap proxy; the using CTA must acquire it at a scope that "
         "covers the writer (gpu for another CTA, sys for the host).",
         "Add {op: fence.proxy.tensormap.acquire} with a wide enough scope in the using CTA, after it can see "
         "the write and before the TMA op.",
         "B15"},
        {"race.tensormap_in_use",
         "A TMA op reads its map asynchronously until it completes.",
         "Change the map only after the loads that use it were waited on (and stores' bulk.wait_group_read).",
         "C17"},
        {"race.tensormap_staged",
         "tensormap.cp_fenceproxy reads the staged copy with every thread of the warp; another thread's "
         "change to it must be ordered before.",
         "Add a {op: sync} between the staging/replace and the cp_fenceproxy.",
         "B15"},
        {"tensormap.unstaged",
         "Shared memory starts undefined; the staged copy holds a map only after tensormap.stage.",
         "Stage the template map ({op: tensormap.stage}) before replacing fields or copying it out.",
         "B15"},
        {"tensormap.invalid_fields",
         "After the replace the map must still satisfy the encoder's rules; an invalid map is undefined.",
         "Choose field values that keep the map valid (strides multiple of 16, box 1..256, ...).",
         "D27"},
        {"tensormap.outside_allocation",
         "The map's dims and strides describe memory beyond the tensor's allocation.",
         "Keep dims times strides within the tensor the map points at.",
         "D27"},
    };
    return table;
}

const RuleHelp* RuleHelpTable::find(const std::string& id) {
    for (const RuleHelp& h : all())
        if (h.id == id) return &h;
    return nullptr;
}

}  // namespace tmasim::model
