#include "scenarios/rule_ids.h"

#include "scenarios/suggest.h"

namespace tmasim {

const std::vector<RuleId>& known_rule_ids() {
    static const std::vector<RuleId> ids = {
        {"proxy.generic_to_async", Outcome::hazard},
        {"proxy.async_write_after_generic", Outcome::hazard},
        {"mbarrier.uninit", Outcome::hazard},
        {"mbarrier.reinit", Outcome::hazard},
        {"mbarrier.count_range", Outcome::hazard},
        {"mbarrier.pending_range", Outcome::hazard},
        {"mbarrier.tx_range", Outcome::fault},
        {"mbarrier.parity_alias", Outcome::hazard},
        {"mbarrier.unobserved_phase", Outcome::hazard},
        {"mbarrier.tx_mismatch", Outcome::hang},
        {"mbarrier.pending_arrivals", Outcome::hang},
        {"race.read_before_complete", Outcome::hazard},
        {"race.early_pass", Outcome::hazard},
        {"race.store_source_overwrite", Outcome::hazard},
        {"race.wgmma_operand_overwrite", Outcome::hazard},
        {"race.global_after_read_only", Outcome::hazard},
        {"race.global_before_complete", Outcome::hazard},
        {"race.cp_async_pending", Outcome::hazard},
        {"race.cp_async_unwaited", Outcome::hazard},
        {"bulk.alignment", Outcome::hazard},
        {"tma.negative_store_coords", Outcome::fault},
        {"tma.inner_coord_alignment", Outcome::fault},
        {"tma.gather4_col_alignment", Outcome::fault},
        {"tma.scatter4_negative_row", Outcome::fault},
        {"wgmma.missing_fence", Outcome::hazard},
        {"wgmma.acc_before_wait", Outcome::hazard},
        {"model.fault", Outcome::fault},
        {"kernel.trap", Outcome::fault},
        {"kernel.watchdog", Outcome::hang},
        {"sync.deadlock", Outcome::hang},
        {"cp_async.wait_deadlock", Outcome::hang},
        {"bulk.wait_deadlock", Outcome::hang},
        {"race.dsmem_unsynced", Outcome::hazard},
        {"mbarrier.remote_before_init_published", Outcome::hazard},
        {"cluster.double_arrive", Outcome::hazard},
        {"cluster.deadlock", Outcome::hang},
        {"cluster.peer_exited", Outcome::hazard},
        {"st_async.barrier_other_cta", Outcome::hazard},
        {"multicast.mask_outside_cluster", Outcome::hazard},
        {"tensormap.no_release", Outcome::hazard},
        {"tensormap.no_acquire", Outcome::hazard},
        {"race.tensormap_in_use", Outcome::hazard},
        {"race.tensormap_staged", Outcome::hazard},
        {"tensormap.unstaged", Outcome::hazard},
        {"tensormap.invalid_fields", Outcome::fault},
        {"tensormap.outside_allocation", Outcome::fault},
        {"race.shared_raw", Outcome::hazard},
        {"race.shared_war", Outcome::hazard},
        {"race.shared_waw", Outcome::hazard},
        {"race.cp_async_waw", Outcome::hazard},
        {"race.async_overlap", Outcome::hazard},
        {"mbarrier.live_bytes_access", Outcome::hazard},
        {"mbarrier.init_over_data", Outcome::hazard},
    };
    return ids;
}

std::optional<Outcome> rule_outcome(const std::string& id) {
    for (const RuleId& r : known_rule_ids())
        if (r.id == id) return r.outcome;
    return std::nullopt;
}

std::string did_you_mean_rule(const std::string& id) {
    std::vector<std::string> ids;
    for (const RuleId& r : known_rule_ids()) ids.push_back(r.id);
    return did_you_mean(id, ids);
}

}  // namespace tmasim
