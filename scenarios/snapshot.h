#pragma once
// shared.snapshot: what both backends agree on besides the bytes. The name of each image
// (so a model and a device trace pair them), and the op instances a CTA executes, which the
// device needs before the launch to size its snapshot area and the host to name what it
// reads back. The program has loops but no data-dependent branches, so the instances
// follow from the loop counts alone, as the validator evaluates them.
#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/ir.h"

namespace tmasim {

// Every snapshot of a run together is kept (model) and copied out (device) in full: this
// bounds the trace size and the device's snapshot area.
constexpr int64_t kMaxSnapshotBytes = int64_t{16} << 20;

// One executed shared.snapshot, in a CTA's program order.
struct SnapshotInstance {
    const Op* op = nullptr;
    std::vector<int64_t> iters;  // enclosing loop indices, outermost first
    std::string buffer;          // the buffer reference evaluated: "tile", "stage[1]"
    int64_t bytes = 0;           // the buffer's size
};

// "<label or #id>[<iters, comma-separated; left out outside loops>]:<buffer>", e.g.
// "put[3]:stage[1]", "#7:tile", "#9[1,0]:stage[0]".
std::string snapshot_image_name(const Op& op, const std::vector<int64_t>& iters, const std::string& buffer);

// "stage[1]" for an array element, "tile" for a single buffer.
std::string buffer_element_name(const SharedBuffer& buffer, int64_t index);

// Every shared.snapshot instance CTA `cta` executes, in program order. Expects a
// validated scenario (loop counts and buffer indices evaluate).
std::vector<SnapshotInstance> snapshot_instances(const Scenario& s, int cta);

// The threads of a `launch.block`-thread CTA that `by` selects.
int selected_threads(const Selector& by, int block);

}  // namespace tmasim
