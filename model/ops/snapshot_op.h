#pragma once
// shared.snapshot on the model: one thread reads a whole shared buffer (a generic read,
// race-checked like a shared.load of those bytes, see ThreadAccess::snapshot_read) and the
// bytes it sees become a MemoryImage of space "snapshot" (scenarios/FORMAT.md), kept in
// the run's SnapshotLog (state/snapshot_log.h).
#include "model/core/event_log.h"
#include "scenarios/expr.h"
#include "scenarios/ir.h"

namespace tmasim::model {

class CtaModule;

class SnapshotOp {
public:
    // Thread `lane` of `warp` takes the snapshot at `site` (its op instance) and logs the
    // image; returns the op's modelled cycles.
    static double take(CtaModule& cta, const Op& op, const Expr::IntEnv& env, int warp, int lane,
                       const EventSite& site);
};

}  // namespace tmasim::model
