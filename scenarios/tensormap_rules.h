#pragma once
#include "scenarios/ir.h"

namespace tmasim {

// The encode rules of cuTensorMapEncodeTiled (semantics.md D27), checked at load time
// so that a bad map fails with its own message on every backend. With interleave: rank
// 3..5, swizzle 32B for INTERLEAVE_32B and strides a multiple of 32 (DRV); the global
// address alignment (32 bytes for INTERLEAVE_32B) always holds, as every backend allocates
// each tensor on its own.
void check_tensormap_encode_rules(const TensorMap& map, const GlobalTensor& tensor);

}  // namespace tmasim
