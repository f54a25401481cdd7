#pragma once
// shared.snapshot on the model: one thread reads a whole shared buffer (a generic read,
// race-checked like a shared.load of those bytes, see ThreadAccess::snapshot_read) and the
// bytes it sees become a MemoryImage of space "snapshot" (scenarios/FORMAT.md). The run
// keeps every image in a SnapshotLog and appends them, ordered by (cta, op, iters), after
// the final memory.
#include <cstdint>
#include <string>
#include <vector>

#include "model/event_log.h"
#include "scenarios/expr.h"
#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::model {

class CtaModule;

class SnapshotLog {
public:
    void add(const EventSite& site, MemoryImage image);
    // Every image taken, ordered by (cta, op id, iters): the same order on every run.
    std::vector<MemoryImage> images() const;

private:
    struct Taken {
        int cta, op;
        std::vector<int64_t> iters;
        MemoryImage image;
    };
    std::vector<Taken> taken_;
};

class SnapshotOp {
public:
    // Thread `lane` of `warp` takes the snapshot at `site` (its op instance) and logs the
    // image; returns the op's modelled cycles.
    static double take(CtaModule& cta, const Op& op, const Expr::IntEnv& env, int warp, int lane,
                       const EventSite& site);
};

}  // namespace tmasim::model
