#pragma once
// The PTX front end's family handlers (model/kernel/unit_*.cpp), one per op family.
#include "model/kernel/unit_call.h"

namespace tmasim::model::kernel {

void unit_mbarrier(UnitCall& c);          // mbarrier.init / inval / arrive / expect_tx / complete_tx
void unit_mbarrier_wait(UnitCall& c);     // mbarrier.try_wait / test_wait
void unit_bar_sync(UnitCall& c);          // bar.sync / barrier.sync / bar.arrive / bar.red
void unit_fence(UnitCall& c);             // fence.proxy.async, fence.mbarrier_init (and memory fences)
void unit_cluster_barrier(UnitCall& c);   // barrier.cluster.arrive / wait
void unit_bulk_copy(UnitCall& c);         // cp.async.bulk(.tensor), cp.reduce.async.bulk(.tensor), prefetches
void unit_bulk_group(UnitCall& c);        // cp.async.bulk.commit_group / wait_group(.read)
void unit_memory(UnitCall& c);            // ld / st / atom / red of shared, shared::cluster, global, generic memory
void unit_cp_async(UnitCall& c);          // cp.async, its groups, cp.async.mbarrier.arrive
void unit_st_async(UnitCall& c);          // st.async / red.async into a peer CTA
void unit_tensormap(UnitCall& c);         // tensormap.replace, tensormap.cp_fenceproxy, fence.proxy.tensormap
void unit_wgmma(UnitCall& c);             // wgmma.fence / mma_async / commit_group / wait_group

}  // namespace tmasim::model::kernel
