#include "scenarios/layout.h"

#include <stdexcept>

namespace tmasim {

namespace {
int64_t round_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }
}  // namespace

const SharedSlot* SharedLayout::find(const std::string& name) const {
    for (const SharedSlot& s : slots)
        if (s.name == name) return &s;
    return nullptr;
}

int64_t SharedLayout::offset_of(const std::string& name, int64_t index) const {
    const SharedSlot* s = find(name);
    if (!s) throw std::out_of_range("no shared buffer or barrier named '" + name + "'");
    if (index < 0 || index >= s->count)
        throw std::out_of_range(name + "[" + std::to_string(index) + "] is outside 0.." +
                                std::to_string(s->count - 1));
    return s->offset + index * s->stride;
}

std::string staged_map_slot(const std::string& map) { return "tensormap." + map; }

SharedLayout compute_shared_layout(const Scenario& sc) {
    SharedLayout layout;
    int64_t cursor = 0;
    for (const SharedBuffer& b : sc.shared) {
        SharedSlot slot;
        slot.name = b.name;
        slot.size = b.size_bytes();
        slot.stride = round_up(slot.size, b.align);
        slot.count = b.count();
        slot.offset = round_up(cursor, b.align);
        cursor = slot.offset + slot.stride * slot.count;
        layout.slots.push_back(slot);
    }
    for (const BarrierDecl& bar : sc.barriers) {
        SharedSlot slot;
        slot.name = bar.name;
        slot.is_barrier = true;
        slot.size = 8;
        slot.stride = 8;
        slot.count = bar.count();
        if (bar.is_view()) {
            // In the buffer's own bytes (the loader checked they fit): no bytes of its own.
            slot.offset = layout.offset_of(bar.at_buffer, bar.at_index) + bar.at_offset;
            slot.view_of = bar.at_buffer;
        } else {
            slot.offset = round_up(cursor, 8);
            cursor = slot.offset + 8 * slot.count;
        }
        layout.slots.push_back(slot);
    }
    // The staged (shared-memory) copy of each map in global memory, for tensormap.stage,
    // tensormap.replace with space: shared and tensormap.cp_fenceproxy: a 128-byte
    // CUtensorMap, 128-byte aligned. Placed last so the other offsets do not move.
    for (const TensorMap& m : sc.tensormaps) {
        if (m.location != MapLocation::global) continue;
        SharedSlot slot;
        slot.name = staged_map_slot(m.name);
        slot.is_tensormap = true;
        slot.size = 128;
        slot.stride = 128;
        slot.offset = round_up(cursor, 128);
        cursor = slot.offset + 128;
        layout.slots.push_back(slot);
    }
    layout.total_bytes = round_up(cursor, 16);
    return layout;
}

}  // namespace tmasim
