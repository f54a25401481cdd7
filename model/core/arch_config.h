#pragma once
// The model's timing numbers for one GPU, loaded from model/arch/<name>.yaml. Each
// number carries the source it was taken from (design principle 6), and the config's
// fnv1a-64 hash goes into every trace's provenance.
#include <map>
#include <string>

namespace tmasim::model {

// All in SM cycles unless the name says otherwise.
struct TimingParams {
    double sm_clock_mhz = 0;
    double sm_count = 0;                     // SMs on the chip (a kernel's %nsmid, %smid)
    double kernel_prologue_cycles = 0;       // kernel entry to the first op of a warp
    double trace_global_words_prologue_cycles = 0;  // more, traced with the clock words in global memory
    double trace_probe_cycles = 0;           // the device executor's per-op probe (timers + record)
    double trace_in_branch_probe_cycles = 0;  // its clock read inside a one-thread run's branch
    double trace_prologue_warp_cycles = 0;    // the traced prologue's time per further warp on each SM scheduler
    double trace_predicate_skip_cycles = 0;  // the traced kernel's warp passing a timed op its predicate leaves it out of
    double issue_cycles = 0;                 // a plain instruction (fences aside)
    double elected_tma_load_pass_cycles = 0;  // a warp the elected lane's guard leaves out of a tma.load
    double elected_tma_map_first_pass_cycles = 0;  // and more on the first such load of each map the warp passes
    double predicate_select_cycles = 0;      // an op `by` a predicate: the vote and branch that pick its threads
    double predicate_division_cycles = 0;    // such an op: each run-time `/` or `%` of its index or value
    double branched_global_load_cycles = 0; // a global.load in a branch (any `by` but all): address in the branch
    double mbarrier_init_cycles = 0;
    double mbarrier_arrive_cycles = 0;
    double mbarrier_expect_tx_cycles = 0;
    double mbarrier_arrive_expect_tx_cycles = 0;
    double mbarrier_wait_resume_cycles = 0;  // from phase completion to the blocked warp running
    double mbarrier_lane_wait_resume_cycles = 0;  // the same when only some of the warp's lanes wait
    double mbarrier_lane_wait_min_cycles = 0;     // such a lane's blocked wait lasts at least this
    double mbarrier_wait_ready_cycles = 0;   // a wait whose phase had already completed (try_wait's own cost)
    double bar_arrive_cycles = 0;            // bar.arrive: the arriving warp's cost (it does not wait)
    double sync_cycles = 0;                  // bar.sync once the last warp arrived
    double trace_sync_hold_cycles = 0;       // a timed sync's end clock held until the release (traced only)
    double fence_proxy_async_cycles = 0;
    double fence_mbarrier_init_cycles = 0;
    double bulk_load_issue_cycles = 0;       // cp.async.bulk global->shared, the instruction itself
    double tensor_load_issue_cycles = 0;     // cp.async.bulk.tensor global->shared
    double store_issue_cycles = 0;           // bulk and tensor shared->global
    double bulk_reduce_issue_cycles = 0;     // cp.reduce.async.bulk (1-D), the instruction
    double tensor_reduce_issue_cycles = 0;   // cp.reduce.async.bulk.tensor, less the map's first-use fetch
    double tensormap_fetch_cycles = 0;       // extra on a CTA's first tensor op on a map
    double shared_store_cycles = 0;          // st.shared is posted: the issue alone
    double tma_latency_l2_cycles = 0;
    double tma_store_latency_cycles = 0;     // a store, reduce or scatter: its source read to written in L2
    double tma_store_read_cycles = 0;        // a store's source read: the fixed part, before its bytes stream
    double tma_store_bytes_per_cycle = 0;    // a store's source read: the rate its bytes go out at
    double tma_latency_hbm_cycles = 0;
    double tma_bytes_per_cycle = 0;          // per SM
    double hbm_bytes_per_cycle = 0;          // the whole chip: L2 misses and write-backs share it
    // One SM's sustained rate of L2-missing reads, with a burst it may run ahead by: a stream
    // from HBM gets about half of what the same stream gets from L2 (dram_channel.h).
    double hbm_sm_bytes_per_cycle = 0;
    double hbm_sm_burst_bytes = 0;
    double hbm_sm_load_slowdown = 0;         // the share of that rate an SM loses while the chip's HBM is saturated
    double l2_bytes = 0;                     // L2 capacity: what a launch can find there (l2_at_launch.h)
    double l2_sectors_per_cycle = 0;         // the whole chip: L1-to-L2 request slots (one per sector moved)
    double l2_request_overhead_sectors = 0;  // the slots each line request takes besides its sectors
    double tma_complete_tx_chunk_bytes = 0;  // a load credits its barrier in pieces this big
    double smem_port_bytes_per_cycle = 0;
    double compute_base_cycles = 0;          // a compute op's fixed cost (loop set-up, first load)
    double compute_cycles_per_element = 0;   // ld.shared + ALU + st.shared per element
    double bulk_commit_cycles = 0;
    double bulk_wait_resume_cycles = 0;      // from the group's completion to the waiter
    // Per-thread generic accesses and cp.async (LDGSTS), and the L2 prefetches.
    double shared_access_cycles = 0;         // ld/st.shared of one warp, first wavefront
    double shared_wavefront_cycles = 0;      // each further 128-byte wavefront (bank conflicts)
    double snapshot_vector_cycles = 0;       // shared.snapshot: each 16-byte vector after the first
    double global_load_l2_cycles = 0;        // ld.global whose lines are in L2
    double global_load_hbm_cycles = 0;       // ld.global of lines never touched, not in L2 (--l2 cold)
    // With the tensors copied in just before the launch (L2AtLaunch::inputs): a line this
    // launch has not read yet, and a CTA's first ld.global of all (its first translation).
    double global_load_first_line_cycles = 0;
    double global_load_first_access_cycles = 0;
    double global_store_cycles = 0;          // st.global of a warp: posted, but its address and value first
    double cp_async_issue_cycles = 0;        // the LDGSTS instruction
    double cp_async_arrive_cycles = 0;       // cp.async.mbarrier.arrive
    double cp_async_latency_l2_cycles = 0;   // issue to bytes in shared memory, L2 hit
    double cp_async_latency_hbm_cycles = 0;  // same, lines from HBM
    double cp_async_wait_resume_cycles = 0;  // from the group's completion to the waiter
    double prefetch_issue_cycles = 0;        // cp.async.bulk.prefetch(.tensor), the instruction
    // Clusters: distributed shared memory and the cluster barrier.
    double dsmem_load_cycles = 0;            // ld.shared::cluster of a peer's bytes, issue to data
    double dsmem_load_wavefront_cycles = 0;  // each further 128 bytes a warp's remote load moves
    double dsmem_store_cycles = 0;           // st.shared::cluster / st.async: the issue (posted)
    double dsmem_latency_cycles = 0;         // a posted remote write or arrive reaching the peer SM
    double cluster_arrive_cycles = 0;        // barrier.cluster.arrive
    double cluster_barrier_cycles = 0;       // last arrival to the cluster barrier's waiters going on
    double cluster_release_cycles = 0;       // a .release.cluster (remote mbarrier.arrive, barrier.cluster.arrive):
                                             // the issuing warp's stall before the arrive leaves the SM
    // wgmma (warpgroup MMA from shared memory).
    double wgmma_issue_cycles = 0;           // wgmma.mma_async, the instruction per warp
    double wgmma_flops_per_cycle = 0;        // dense f16/bf16 tensor-core rate per SM (4 sub-partitions)
    double wgmma_latency_cycles = 0;         // an mma's last tensor-core cycle to its result in registers
    double wgmma_wait_resume_cycles = 0;     // from the group's completion to the waiter
    double wgmma_commit_cycles = 0;          // wgmma.commit_group
    double wgmma_store_base_cycles = 0;      // acc_store: the fixed part (fragment addresses)
    double wgmma_store_register_cycles = 0;  // acc_store: each register's st.shared
    // acc_store: the warpgroup's fragment-store wavefronts the posted-store queues hold before
    // the shared-memory pipe (smem_port_bytes_per_cycle) holds the warps back
    double wgmma_store_queue_wavefronts = 0;
    // Tensor maps in global memory (tensormap.replace and its fences).
    double tensormap_stage_cycles = 0;              // one thread copies the 128-byte template to shared memory
    double tensormap_replace_cycles = 0;            // tensormap.replace of one field
    double tensormap_cp_fenceproxy_cycles = 0;      // the warp's 128-byte copy to global memory and its release
    double fence_proxy_tensormap_release_cycles = 0;
    double fence_proxy_tensormap_acquire_cycles = 0;
};

class ArchConfig {
public:
    // Throws std::runtime_error naming the file and key on an unknown key, a missing
    // key, a missing or empty source, or a value that is not a positive number.
    static ArchConfig load_file(const std::string& path);
    // `arch` names a file in `arch_dir`; an unknown name lists the known ones.
    static ArchConfig load_named(const std::string& arch, const std::string& arch_dir);

    const std::string& name() const { return name_; }
    const std::string& gpu() const { return gpu_; }
    const std::string& sm() const { return sm_; }       // "sm_90" or "sm_100": what the GPU runs
    const std::string& hash() const { return hash_; }   // fnv1a-64 of the file bytes, hex
    const std::string& path() const { return path_; }
    const TimingParams& timing() const { return timing_; }
    const std::map<std::string, std::string>& sources() const { return sources_; }

private:
    std::string name_, gpu_, sm_, hash_, path_;
    TimingParams timing_;
    std::map<std::string, std::string> sources_;  // parameter -> where its value comes from
};

}  // namespace tmasim::model
