#pragma once
// Placement of shared buffers and mbarriers in a CTA's shared memory. Both backends use
// the same layout so swizzle base offsets and bank behaviour agree. Offsets are relative
// to a 1024-byte-aligned base (the device aligns its dynamic shared memory to 1024).
#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/ir.h"

namespace tmasim {

struct SharedSlot {
    std::string name;     // buffer or barrier name (one slot covers the whole array)
    bool is_barrier = false;
    bool is_tensormap = false;  // the staged copy of a map in global memory
    int64_t offset = 0;   // byte offset of element [0]
    int64_t stride = 0;   // bytes between array elements (size rounded up to align)
    int64_t size = 0;     // bytes of one element
    int64_t count = 1;
    std::string view_of;  // a barrier in a buffer's bytes: that buffer (it takes no bytes of its own)
};

struct SharedLayout {
    std::vector<SharedSlot> slots;
    int64_t total_bytes = 0;  // bytes needed past the aligned base

    const SharedSlot* find(const std::string& name) const;
    // Offset of name[index]; throws std::out_of_range when index is outside the array.
    int64_t offset_of(const std::string& name, int64_t index) const;
};

// Buffers in declaration order, each at its alignment; then the barriers, 8 bytes each
// (a view's in its buffer's bytes); then a 128-byte staged copy of each map declared with
// location: global.
SharedLayout compute_shared_layout(const Scenario& s);
// The slot name of map `map`'s staged copy ("tensormap.<map>"; not a valid buffer name).
std::string staged_map_slot(const std::string& map);

}  // namespace tmasim
