#pragma once
// One CTA: its shared-memory image, mbarriers, proxy tracker, bulk groups, sync barrier,
// TMA engine and one SystemC thread per warp. The warps and the engine change state only
// through the methods here, so every change also lands in the log.
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <systemc>

#include "model/copy/shared_memory_image.h"
#include "model/state/async_write_registry.h"
#include "model/state/barrier_set.h"
#include "model/state/bulk_groups.h"
#include "model/state/bulk_store_registry.h"
#include "model/state/cp_async_groups.h"
#include "model/state/cta_sync.h"
#include "model/state/named_barriers.h"
#include "model/state/proxy_tracker.h"
#include "model/state/shared_access_history.h"
#include "model/sm/run_context.h"
#include "model/sm/tma_engine.h"
#include "model/state/wgmma_state.h"

namespace tmasim::model {

class WarpProcess;
class CpAsyncUnit;
class Cluster;

class CtaModule : public sc_core::sc_module {
public:
    CtaModule(sc_core::sc_module_name name, RunContext& run, int cta);
    ~CtaModule() override;

    RunContext& run() { return run_; }
    int index() const { return cta_; }
    int num_threads() const { return run_.scenario.launch.block; }
    // The shared-memory bytes, with every TMA landing held by smem_image() written first.
    std::vector<uint8_t>& smem() { return smem_.bytes(); }
    size_t smem_size() const { return smem_.size(); }
    SharedMemoryImage& smem_image() { return smem_; }
    ProxyTracker& tracker() { return tracker_; }
    BarrierSet& barriers() { return barriers_; }
    const BarrierSet& barriers() const { return barriers_; }
    BulkGroups& groups() { return groups_; }
    TmaEngine& engine() { return *engine_; }
    // Only when the program has cp.async ops (OpFamily::cp_async), the unit's only users.
    CpAsyncUnit& cp_unit();
    CpAsyncGroups& cp_groups() { return cp_groups_; }
    AsyncWriteRegistry& async_writes() { return async_writes_; }
    BulkStoreRegistry& bulk_stores() { return bulk_stores_; }
    SharedAccessHistory& shared_accesses() { return shared_accesses_; }
    // The wgmma state of warpgroup `group` (warps 4*group .. 4*group+3), made on first use.
    WgmmaState& wgmma(int group);
    // What AsyncWriteRegistry asks about the barriers' observed phases.
    BarrierObservations observations() const;

    // async_arrive: a cp.async.mbarrier.arrive firing once the thread's copies landed (it
    // publishes the thread's cp.async agent, not the thread); increment_pending: the
    // non-.noinc form's pending += 1 at issue; remote_arrive: an arrive by a thread of
    // another CTA of the cluster (`thread` is its tid there; the cluster tracks what it
    // releases, this CTA's tracker cannot).
    enum class BarrierAction { init, inval, arrive, expect_tx, complete_tx, async_arrive, increment_pending,
                               remote_arrive };
    // Applies one mbarrier action by `thread` (for complete_tx: the thread that issued the
    // copy). Logs complete_tx / phase_flip, publishes released clocks, wakes waiters. A
    // broken rule is reported as a hazard at `site` and the action is dropped (false).
    bool barrier_action(int barrier, BarrierAction action, int64_t amount, int thread,
                        const Op& op, const EventSite& site);
    // How many of a landing's chunk credits, from `first` on, barrier_action(complete_tx)
    // would take one by one without breaking a rule or completing the phase, in a CTA whose
    // cluster is not tracked (0 otherwise): those can go through complete_tx_run.
    size_t open_credits(int barrier, const TmaRequest::ChunkRun& chunks, size_t first);
    // A TMA load's (or a multicast delivery's) bytes [first, last] of this CTA's shared memory,
    // landing by thread `issuer`'s op `op_id` on `barrier`: registered in async_writes() chunk
    // by chunk as the load credits the barrier (tma_complete_tx_chunk_bytes), then pruned.
    // Returns the chunks as the rule that cut them.
    TmaRequest::ChunkRun register_tma_landing(int barrier, int issuer, int op_id, int64_t first, int64_t last,
                                              int64_t bytes);
    // barrier_action(complete_tx) for chunks [first, first + count), which open_credits
    // allowed, once their bytes landed: the same barrier state, log and released clock,
    // with one release_into and one wake-up instead of one per chunk. The caller has made
    // the count - 1 agent ticks of the earlier chunks' releases (ProxyTracker::advance).
    void complete_tx_run(int barrier, const TmaRequest::ChunkRun& chunks, size_t first, size_t count,
                         const EventSite& site);

    uint64_t sync_arrive(int warp);
    bool sync_passed(uint64_t generation) const { return sync_.passed(generation); }
    sc_core::sc_event& sync_event() { return sync_changed_; }
    // Named barriers (bar.sync / bar.arrive): their state and the event their phases notify.
    NamedBarriers& named_barriers() { return named_; }
    const NamedBarriers& named_barriers() const { return named_; }
    sc_core::sc_event& named_barrier_event() { return named_changed_; }
    void warp_exited(int warp);
    // A kernel's barrier that some thread waited on: from then on A9 (every phase observed
    // before the next arrive) applies to it, as to a program's barriers some op waits on.
    void note_waited(const std::string& decl) { waited_barriers_.insert(decl); }
    // True the first time this CTA uses tensor map `name` (its descriptor is fetched then).
    bool first_use_of_map(const std::string& name) { return used_maps_.insert(name).second; }

    // Records a hazard (outcome hazard) at `site`; the run goes on.
    void hazard(const Op& op, const EventSite& site, const std::string& rule,
                const std::string& message, std::map<std::string, std::string> detail = {});
    // Like hazard(), once per op instance and rule: a warp-wide access that races in many
    // lanes (or warps) is one report.
    void hazard_once(const Op& op, const EventSite& site, const std::string& rule,
                     const std::string& message, std::map<std::string, std::string> detail = {});
    // Records a fault and tears the run down (every thread unwinds).
    void fault(const Op& op, const EventSite& site, const std::string& message,
               const std::string& rule = "model.fault");

    const std::vector<std::unique_ptr<WarpProcess>>& warps() const { return warps_; }
    bool all_warps_finished() const;
    void wake_for_abort();
    // Final shared buffers of this CTA: "buf" or "buf[i]", in declaration order.
    std::vector<MemoryImage> shared_images() const;

    // cluster_of(*this) when its cluster has 2 CTAs or more (Cluster::tracking), else null:
    // a cluster of one ignores barrier actions and landings, which the TMA makes per 256-byte
    // chunk (looking the cluster up each time was ~3% of a full-chip stream). Resolved on
    // first use: the fabric is built after the CTAs.
    Cluster* tracking_cluster();

    // True the first time it is asked: a CTA's first ld.global pays its first address
    // translation (global_load_first_access_cycles).
    bool take_first_global_load() {
        const bool first = !global_loaded_;
        global_loaded_ = true;
        return first;
    }

private:
    bool global_loaded_ = false;
    bool cluster_resolved_ = false;
    Cluster* tracking_cluster_ = nullptr;
    // The diagnostic of a hazard or fault at `site`, into the run's log.
    void report(Outcome outcome, const Op& op, const EventSite& site, const std::string& rule,
                const std::string& message, std::map<std::string, std::string> detail);
    void try_release_sync();
    void check_observed_before_arrive(BarrierSlot& b, const Op& op, const EventSite& site);
    void log_barrier_state(const BarrierSlot& b, const EventSite& site, const std::string& what,
                           std::map<std::string, std::string> detail);

    RunContext& run_;
    int cta_;
    SharedMemoryImage smem_;
    ProxyTracker tracker_;
    BarrierSet barriers_;
    BulkGroups groups_;
    CpAsyncGroups cp_groups_;
    AsyncWriteRegistry async_writes_;
    BulkStoreRegistry bulk_stores_;
    SharedAccessHistory shared_accesses_;
    // One per warpgroup (4 warps), made by the first wgmma(): every CTA of a program without
    // wgmma made them (two maps per warp), fresh memory faulted in and freed at 132 CTAs.
    std::vector<WgmmaState> wgmma_;
    std::set<std::string> waited_barriers_;  // declared names some op waits on (A9)
    std::set<std::string> used_maps_;        // tensor maps whose descriptor this CTA fetched
    std::set<std::tuple<int, std::vector<int64_t>, std::string>> reported_;
    CtaSync sync_;
    sc_core::sc_event sync_changed_;
    NamedBarriers named_;
    sc_core::sc_event named_changed_;
    std::unique_ptr<TmaEngine> engine_;
    std::unique_ptr<CpAsyncUnit> cp_unit_;
    std::vector<std::unique_ptr<WarpProcess>> warps_;
};

}  // namespace tmasim::model
