#pragma once
// What the issuing warp spends on an mbarrier op of its CTA's own barrier, for both front ends.
#include "model/core/arch_config.h"
#include "scenarios/op_table.h"

namespace tmasim::model {

inline double local_barrier_cycles(OpKind kind, const TimingParams& tp) {
    if (kind == OpKind::mbarrier_init) return tp.mbarrier_init_cycles;
    if (kind == OpKind::mbarrier_arrive) return tp.mbarrier_arrive_cycles;
    if (kind == OpKind::mbarrier_expect_tx) return tp.mbarrier_expect_tx_cycles;
    if (kind == OpKind::mbarrier_arrive_expect_tx) return tp.mbarrier_arrive_expect_tx_cycles;
    return tp.issue_cycles;  // mbarrier.inval
}

}  // namespace tmasim::model
