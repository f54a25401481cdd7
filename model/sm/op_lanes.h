#pragma once
// Which lanes of a warp run an op, and which of them log its events. Both depend on the op's
// selector and the warp's index alone (a selector's predicate sees tid, lane and warp; the
// block size is the launch's), not on the CTA: one table serves every CTA of a run. A
// selector naming loop variables (Selector::per_iteration) is left out of the table: its
// lanes are worked out at each instance.
#include <vector>

#include "scenarios/ir.h"

namespace tmasim::model {

struct OpLanes {
    std::vector<int> lanes;   // the lanes of the warp whose threads the selector picks
    std::vector<int> events;  // those that log the op's events (event_lanes_of)
};

// Lanes that get events: each executing lane for single-thread selectors, else lane 0.
std::vector<int> event_lanes_of(const Op& op, const std::vector<int>& lanes);
// Warp `warp`'s lanes for `op` in a block of `threads` threads; `env`, the instance's loop
// variables, for a per_iteration selector (null for any other).
OpLanes op_lanes_of(const Op& op, int warp, int threads, const Expr::IntEnv* env = nullptr);

// Every op's lanes for every warp of the block, made once per run. A full-chip stream asks
// 500k times; each of 528 warps keeping its own copy, its lines were out of cache at most
// asks (132 CTAs' state does not fit in it), where one table for all stays in.
class OpLanesTable {
public:
    explicit OpLanesTable(const Scenario& s);
    // Null for an op the scenario does not hold (one without an id, or another's), and for
    // one whose selector is per_iteration.
    const OpLanes* find(const Op& op, int warp) const {
        if (op.id < 0 || static_cast<size_t>(op.id) >= ops_.size() || ops_[op.id] != &op) return nullptr;
        if (warp < 0 || warp >= warps_) return nullptr;
        return &table_[static_cast<size_t>(op.id) * static_cast<size_t>(warps_) + static_cast<size_t>(warp)];
    }

private:
    int warps_ = 0;
    std::vector<const Op*> ops_;  // by id
    std::vector<OpLanes> table_;  // [op id][warp]
};

}  // namespace tmasim::model
