#pragma once
// The images shared.snapshot takes during a run (ops/snapshot_op.h takes them). The run
// appends them, ordered by (cta, op, iters), after the final memory.
#include <cstdint>
#include <vector>

#include "model/core/event_log.h"
#include "scenarios/run_result.h"

namespace tmasim::model {

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

}  // namespace tmasim::model
