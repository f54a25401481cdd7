#pragma once
// How a warp moves a tile in a register layout to or from memory: which registers each
// instruction carries (the vector width), and which element offsets each lane touches.
// Both backends use it, so the model counts the accesses the generated code makes.
//
// A vector is `vec` consecutive registers r0..r0+vec-1 (r0 a multiple of vec) whose
// elements sit at consecutive offsets starting at a multiple of vec, for every thread;
// vec is the largest power of two that holds, at most 16 bytes (the widest ld/st).
#include <cstdint>
#include <functional>
#include <vector>

#include "scenarios/linear_layout.h"

namespace tmasim {

struct LayoutAccessPlan {
    int64_t vec = 1;          // elements per vector
    int64_t vec_bytes = 0;    // vec * element size: the width of each ld/st
    int64_t per_thread = 0;   // instructions each thread issues: num_regs / vec
    // stores[(warp * lanes + lane) * per_thread + k]: whether that thread's vector k is
    // written by a store. The first holder of an element in (warp, lane, register) order
    // writes it; broadcast copies stay silent, as in Triton's stores.
    std::vector<bool> stores;
    bool thread_stores(int64_t warp, int64_t lane, int64_t lanes, int64_t k) const {
        return stores[size_t((warp * lanes + lane) * per_thread + k)];
    }
};

// `offset(coords)` is the element offset of a tile element in memory (global: strides;
// shared: the shared layout).
LayoutAccessPlan plan_layout_access(const LinearLayout& l, int64_t element_bytes,
                                    const std::function<int64_t(const Coords&)>& offset);

// Sectors (32 B) and lines (128 B) one warp instruction touches, from its lanes' byte
// addresses and the access width.
struct SectorCount {
    int64_t sectors = 0, lines = 0;
};
SectorCount count_sectors(const std::vector<int64_t>& byte_addresses, int64_t width);

}  // namespace tmasim
