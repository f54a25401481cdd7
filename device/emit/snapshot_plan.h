#pragma once
// Where the kernel copies shared.snapshot images: one global "snapshot area", a slice per
// CTA, in each slice a taken-flag per instance slot, then a region per snapshot op holding
// as many images as the op executes at most in one CTA. The kernel keeps a counter per op
// (every thread runs the same loops), so instance k of an op lands in slot k of its region;
// the host enumerates the same instances (scenarios/snapshot.h) to name what it reads back.
// A flag stays 0 for an instance the kernel never reached (a hang), so no image is made up.
#include <cstdint>
#include <vector>

#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::device {

struct SnapshotRegion {
    int op = -1;                // Op::id
    int64_t bytes = 0;          // one image: the buffer's size
    int64_t stride = 0;         // bytes rounded up to 16: every image 16-byte aligned
    int64_t max_instances = 0;  // the most any CTA executes
    int64_t first_slot = 0;     // index of its first taken-flag
    int64_t data_offset = 0;    // of its first image, in the CTA's slice
};

struct SnapshotPlan {
    std::vector<SnapshotRegion> regions;  // op id order
    int64_t slots_per_cta = 0;
    int64_t bytes_per_cta = 0;            // a multiple of 16; 0 without snapshot ops
    const SnapshotRegion* find(int op) const;
};

SnapshotPlan plan_snapshots(const Scenario& s);

// The images in `area` (the whole snapshot area, every CTA's slice): one per taken
// instance, space "snapshot", ordered by (cta, op id, iters).
std::vector<MemoryImage> snapshot_images(const Scenario& s, const SnapshotPlan& plan,
                                         const std::vector<uint8_t>& area);

}  // namespace tmasim::device
