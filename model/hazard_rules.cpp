#include "model/hazard_rules.h"

#include <stdexcept>

#include <fmt/format.h>

namespace tmasim::model {

const std::vector<HazardRule>& HazardRules::all() {
    using O = Outcome;
    static const std::vector<HazardRule> table = {
        // Proxies (B)
        {"proxy.generic_to_async", O::hazard,
         "generic writes read by the async proxy need fence.proxy.async on the causality path",
         "PTX 9.7.13.4; semantics.md B12, B14, scenarios 7, 8, 24"},
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
        // Operands (D)
        {"bulk.alignment", O::hazard, "bulk sizes and addresses must be 16-byte (tensor smem: 128-byte) aligned",
         "PTX 9.7.9.25.4.1, 5.5.3; semantics.md D22, D25"},
        {"tma.negative_store_coords", O::fault,
         "only tensor loads may start at negative coordinates; a store traps",
         "PTX 9.7.9.27.1.1, 5.5.3.3; semantics.md D26, scenario 18"},
        // Blackwell gather4/scatter4 (G)
        {"tma.gather4_col_alignment", O::fault,
         "the column of tile::gather4/scatter4 must be a 16-byte aligned byte offset; the hardware traps "
         "(illegal instruction)",
         "PTX 9.7.9.27.1.2; Gluon tutorial 09-tma-gather-scatter; semantics.md G35, scenario 23d"},
        {"tma.scatter4_negative_row", O::fault,
         "tile::scatter4 rows must be non-negative (only gather4 may address rows below 0); the hardware traps",
         "PTX 9.7.9.27.1.2; Gluon tutorial 09-tma-gather-scatter; semantics.md G35, D26, scenario 23c"},
        // Not a rule of PTX: how the model ends a run on a value it cannot execute.
        {"model.fault", O::fault, "the op cannot be executed (an index or range outside its buffer)",
         "scenarios/FORMAT.md"},
        {"sync.deadlock", O::hang, "a barrier.sync that some live warp never reaches hangs",
         "PTX 9.7.13.1; semantics.md F33"},
        {"cp_async.wait_deadlock", O::hang, "a cp.async group wait whose copies never land hangs",
         "PTX 9.7.9.25.3; semantics.md C20"},
        {"bulk.wait_deadlock", O::hang, "a group wait whose groups never complete hangs",
         "PTX 9.7.9.27.2; semantics.md C18"},
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

}  // namespace tmasim::model
