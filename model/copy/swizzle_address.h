#pragma once
// TMA shared-memory swizzle (semantics.md E28-E29, PTX 5.5.7): the 16-byte chunk index
// (address bits 4-6) is XORed with the 128-byte line index (bits 7-9) masked to the
// mode's repeat. The hardware swizzles the absolute shared-memory address, which is why
// callers pass offsets from the 1024-aligned base of the CTA's shared memory.
#include <cstdint>
#include <utility>

#include "scenarios/enums.h"

namespace tmasim::model {

// Physical byte address of logical address `addr` under `mode` (an involution).
int64_t swizzled_address(Swizzle mode, int64_t addr);

// The shared-memory bytes a `bytes`-long box at `offset` may touch: swizzling permutes
// 16-byte chunks inside each 128-byte line, so with a mode set the unswizzled span widens
// to whole lines.
std::pair<int64_t, int64_t> swizzled_span(Swizzle s, int64_t offset, int64_t bytes);

// Bytes after which the pattern repeats: 256 / 512 / 1024, or 0 for none.
int64_t swizzle_repeat_bytes(Swizzle mode);

}  // namespace tmasim::model
